//! `capout --mcp` from the outside: its command line, and raw JSON-RPC on
//! its stdin, malformed requests included. The full client tests are in
//! tests/mcp/ (the official Python SDK's client).

use assert_cmd::Command;

fn capout() -> Command {
    crate::common::capout()
}

#[test]
fn mcp_takes_no_option_but_root() {
    let out = capout().args(["--mcp", "-n", "5"]).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: --mcp takes no option but --root DIR: capout --mcp [--root DIR]\n"),
        "{err}"
    );
    capout().args(["--root", "."]).assert().code(2);
    capout().args(["-c", "5"]).env("CAPOUT_OPTS", "--mcp").assert().code(2);
}

#[test]
fn capout_mcp_has_help_and_a_version_and_starts_no_server_for_them() {
    let server = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_capout-mcp"));
        crate::common::clean_env(&mut cmd);
        let mut cmd = Command::from_std(cmd);
        cmd.timeout(std::time::Duration::from_secs(60));
        cmd
    };
    for flag in ["--help", "-h"] {
        let out = server().arg(flag).write_stdin("").assert().success().get_output().clone();
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.starts_with("capout-mcp: the MCP server of capout, and its proxy\n\nUsage: "), "{help}");
        assert!(help.contains("capout-mcp --wrap [--profile NAME] -- COMMAND [ARG]..."), "{help}");
        // Every option, and their texts in one column, as clap lays out capout's.
        let options: Vec<&str> =
            help.split("\nOptions:\n").nth(1).unwrap().lines().take_while(|l| !l.is_empty()).collect();
        let names: Vec<&str> = options.iter().map(|l| l.trim_start().split("  ").next().unwrap()).collect();
        assert_eq!(
            names,
            ["--root DIR", "--wrap", "--profile NAME", "-h, --help", "-V, --version"],
            "{help}"
        );
        let column = |l: &str| {
            let text = l.trim_start().split_once("  ").unwrap().1.trim_start();
            l.len() - text.len()
        };
        assert!(options.iter().all(|l| column(l) == column(options[0])), "{help}");
    }
    for flag in ["--version", "-V"] {
        server().arg(flag).assert().success().stdout(format!("capout-mcp {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn a_root_that_is_not_a_folder_is_an_error() {
    capout()
        .args(["--mcp", "--root", "no/such/dir"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("capout: --mcp: --root no/such/dir: no such file or directory\n");
}

#[test]
fn help_documents_mcp_and_root() {
    let out = capout().arg("--help").assert().success().get_output().stdout.clone();
    let help = String::from_utf8(out).unwrap();
    assert!(help.contains("--mcp ") && help.contains("--root <DIR>"), "{help}");
}

/// The responses to `requests`, one line each, sorted by id.
fn serve(requests: &[&str]) -> Vec<serde_json::Value> {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("f.txt"), "one\ntwo\nthree\n").unwrap();
    let input = requests.join("\n") + "\n";
    let out = capout()
        .args(["--mcp", "--root"])
        .arg(root.path())
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let mut responses: Vec<serde_json::Value> =
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    responses.sort_by_key(|r| r["id"].as_u64());
    responses
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[test]
fn bad_requests_get_errors_and_the_session_goes_on() {
    let responses = serve(&[
        INIT,
        INITIALIZED,
        // Not JSON: a parse error with id null, and the session goes on.
        "garbage{",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"../x"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"path":"f.txt","limit":2}}}"#,
    ]);
    assert_eq!(responses.len(), 5, "{responses:?}");
    // Sorted by id: the reply with id null comes first.
    assert_eq!(responses[0]["id"], serde_json::Value::Null);
    assert_eq!(responses[0]["error"]["code"], -32700);
    let responses = &responses[1..];
    assert_eq!(responses[0]["result"]["serverInfo"]["name"], "capout");
    assert_eq!(responses[1]["error"]["code"], -32602);
    assert_eq!(responses[2]["result"]["isError"], true);
    assert_eq!(responses[2]["result"]["content"][0]["text"], "'../x' is outside the root");
    assert_eq!(
        responses[3]["result"]["content"][0]["text"],
        "     1\tone\n     2\ttwo\n... (truncated, showing lines 1-2 of 3, next offset 2)\n"
    );
}

/// The bash tool still runs a command once the server's own file is gone,
/// as when capout is upgraded (or removed) while a client keeps its server
/// running: the command starts in its session with no second start of
/// capout's file.
#[test]
fn the_bash_tool_runs_after_the_servers_own_file_is_removed() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("capout-mcp");
    std::fs::copy(env!("CARGO_BIN_EXE_capout-mcp"), &server).unwrap();
    let mut cmd = std::process::Command::new(&server);
    crate::common::clean_env(&mut cmd);
    cmd.args(["--root"])
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // A test running beside this one may fork while the copy is still
    // open for writing: its child holds the file open until it executes,
    // and until then the kernel refuses to execute the copy (ETXTBSY).
    // That passes within the child's fork-to-exec; try again a while.
    let mut tries = 0;
    let mut child = loop {
        match cmd.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 500 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            spawned => break spawned.unwrap(),
        }
    };
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(input, "{INIT}").unwrap();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("serverInfo"), "{line}");
    // The server runs; its file is gone from now on.
    std::fs::remove_file(&server).unwrap();
    writeln!(input, "{INITIALIZED}").unwrap();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo ran"}}}"#;
    writeln!(input, "{call}").unwrap();
    line.clear();
    output.read_line(&mut line).unwrap();
    drop(input);
    let _ = child.wait();
    let response: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(response["result"]["content"][0]["text"], "ran\n", "{response}");
}
