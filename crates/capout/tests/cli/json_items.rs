//! `--json-items` and `--json-string-chars` (SPEC §15): JSON cut so that
//! it stays JSON, with its notice, its `--json` fields, its placeholders,
//! the profiles `tool` and `read`, and real documents, each output parsed
//! by `jq`.

use std::path::Path;
use std::process::{Command, Stdio};

use capout_testkit::json::{Cut, check_values};

/// capout with `args` on `input`: its stdout, after a status of 0.
fn run(args: &[&str], input: &[u8]) -> String {
    let out = crate::common::capout().args(args).write_stdin(input).assert().success().get_output().clone();
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// capout with `args` on `input`, which must refuse them: its stderr.
fn refused(args: &[&str]) -> String {
    let out = crate::common::capout().args(args).write_stdin("[]").assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).expect("UTF-8")
}

/// Whether `jq` parses all of `json` (a text or JSON Lines). Where jq is
/// not installed and CI does not require it, `serde_json` parses it
/// instead, and the tests say once that jq's check was left out.
fn jq_parses(json: &[u8]) -> bool {
    static JQ: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*JQ.get_or_init(|| crate::common::oracle_or_skip("jq", "--version", "json_items", "the check by jq"))
    {
        return serde_json::Deserializer::from_slice(json)
            .into_iter::<serde::de::IgnoredAny>()
            .all(|document| document.is_ok());
    }
    let mut jq = Command::new("jq")
        .args(["-c", "."])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("jq is installed");
    let mut stdin = jq.stdin.take().expect("piped");
    let writer = {
        let json = json.to_vec();
        std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &json))
    };
    let status = jq.wait().expect("jq ran");
    let _ = writer.join();
    status.success()
}

const TOOL_RESULT: &str = r#"{
  "total": 5,
  "items": [
    {"id": 1, "name": "alpha"},
    {"id": 2, "name": "beta"},
    {"id": 3, "name": "gamma"},
    {"id": 4, "name": "delta"},
    {"id": 5, "name": "epsilon"}
  ],
  "note": "abcdefghijklmnopqrstuvwxyz"
}
"#;

#[test]
fn json_items_keeps_the_first_items_of_every_array_and_object() {
    assert_eq!(
        run(&["--head-chars", "8000", "--json-items", "2"], TOOL_RESULT.as_bytes()),
        "{\n  \"total\": 5,\n  \"items\": [\n    {\"id\": 1, \"name\": \"alpha\"},\n    \
         {\"id\": 2, \"name\": \"beta\"}\n  ]\n}\n\
         ... (truncated JSON: kept 4 of 8 items in 2 arrays, 0 strings cut)\n"
    );
}

#[test]
fn json_string_chars_cuts_a_long_string_inside_its_quotes() {
    let out = run(
        &["--head-chars", "8000", "--json-items", "3", "--json-string-chars", "10"],
        TOOL_RESULT.as_bytes(),
    );
    assert!(out.contains("\"note\": \"abcdefghij…[+16 chars]\"\n}\n"), "{out}");
    assert!(out.ends_with("... (truncated JSON: kept 3 of 5 items in 1 arrays, 1 strings cut)\n"), "{out}");
}

/// A string cut alone is a cut: the notice says so.
#[test]
fn a_string_cut_alone_gives_the_notice() {
    assert_eq!(
        run(&["--head-chars", "100", "--json-items", "5", "--json-string-chars", "3"], br#"["abcd"]"#),
        "[\"abc…[+1 chars]\"]\n... (truncated JSON: kept 0 of 0 items in 0 arrays, 1 strings cut)\n"
    );
}

#[test]
fn no_notice_at_exactly_n_items_one_at_n_plus_one() {
    let input = br#"{"a":[1,2,3]}"#;
    assert_eq!(run(&["--head-chars", "100", "--json-items", "3"], input), r#"{"a":[1,2,3]}"#);
    assert_eq!(
        run(&["--head-chars", "100", "--json-items", "2"], input),
        "{\"a\":[1,2]}\n... (truncated JSON: kept 2 of 3 items in 1 arrays, 0 strings cut)\n"
    );
}

/// `[1, 22, 333]` is 12 characters: the head cap's budget drops its last
/// items, the closing bracket always written.
#[test]
fn the_budget_drops_the_last_items_and_the_output_stays_json() {
    let input = b"[1, 22, 333]";
    assert_eq!(run(&["--head-chars", "12", "--json-items", "5"], input), "[1, 22, 333]");
    for (budget, kept) in [("11", "[1, 22]"), ("6", "[1]"), ("2", "[]")] {
        let out = run(&["--head-chars", budget, "--json-items", "5", "--notice", "stderr"], input);
        assert_eq!(out, kept, "--head-chars {budget}");
    }
    assert_eq!(
        run(&["--head-chars", "11", "--json-items", "5"], input),
        "[1, 22]\n... (truncated JSON: kept 2 of 3 items in 1 arrays, 0 strings cut)\n"
    );
    // In bytes, a character of several bytes counts them all.
    assert_eq!(
        run(
            &["--head-chars", "8", "--bytes", "--json-items", "5", "--notice", "none"],
            "[\"é\", 1]".as_bytes()
        ),
        "[\"é\"]"
    );
}

#[test]
fn json_lines_are_cut_each_and_head_lines_counts_documents() {
    let input = b"{\"a\":[1,2]}\n{\"a\":[1,2]}\n{\"a\":[1,2]}\n";
    assert_eq!(
        run(&["-n", "2", "--json-items", "1"], input),
        "{\"a\":[1]}\n{\"a\":[1]}\n\
         ... (truncated JSON: kept 2 of 4 items in 2 arrays, 0 strings cut; kept 2 of 3 documents)\n"
    );
    // A pretty-printed document is one document, however many lines.
    let pretty = "[\n  1,\n  2,\n  3\n]\n";
    assert_eq!(
        run(&["-n", "1", "--json-items", "2", "--notice", "none"], pretty.as_bytes()),
        "[\n  1,\n  2\n]\n"
    );
}

#[test]
fn input_that_is_not_json_is_capped_as_text() {
    assert_eq!(
        run(&["--head-chars", "5", "--json-items", "2"], b"hello world"),
        "hello\n... (truncated, showing first 5 chars)\n"
    );
    assert_eq!(run(&["--head-chars", "50", "--json-items", "2"], b"{\"a\": 1"), "{\"a\": 1");
}

#[test]
fn json_that_stops_being_json_is_capped_as_text_and_says_where_it_ended() {
    assert_eq!(
        run(&["--head-chars", "8", "--json-items", "5"], br#"{"a": [1, 2, 3"#),
        "{\"a\": [1\n... (truncated, showing first 8 chars; JSON ended at byte 14)\n"
    );
    assert_eq!(
        run(&["-n", "2", "--json-items", "5"], b"{\"a\":1}\nnot json\n{\"b\":2}\n"),
        // `n` may begin `null`: the JSON ends at `o`.
        "{\"a\":1}\nnot json\n... (truncated, showing lines 1-2 of 3, next offset 2; JSON ended at byte 9)\n"
    );
}

#[test]
fn the_notice_names_the_saved_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("whole.json");
    let out =
        run(&["--head-chars", "100", "--json-items", "2", "--save", file.to_str().unwrap()], b"[1,2,3]");
    assert_eq!(
        out,
        format!(
            "[1,2]\n... (truncated JSON: kept 2 of 3 items in 1 arrays, 0 strings cut; full output: {})\n",
            file.display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"[1,2,3]");
}

#[test]
fn json_gives_the_counts_as_fields() {
    let out = run(&["--head-chars", "100", "--json-items", "2", "--json"], br#"{"a":[1,2,3],"b":"x","c":0}"#);
    let object: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(object["output"], r#"{"a":[1,2],"b":"x"}"#);
    assert_eq!(object["notice"], "... (truncated JSON: kept 4 of 6 items in 2 arrays, 0 strings cut)");
    for (field, value) in [
        ("json_items_kept", 4),
        ("json_items", 6),
        ("json_arrays_cut", 2),
        ("json_strings_cut", 0),
        ("json_documents_kept", 1),
        ("json_documents", 1),
    ] {
        assert_eq!(object[field], value, "{field}");
    }
    assert_eq!(object["json_ended_at"], serde_json::Value::Null);
    assert_eq!(object["truncated"], true);
    // Not JSON to its end: where it ended, and no counts.
    let out = run(&["--head-chars", "100", "--json-items", "2", "--json"], b"[1, 2] x");
    let object: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&object["json_ended_at"], &object["json_items"]),
        (&serde_json::json!(7), &serde_json::Value::Null)
    );
    // Without --json-items, none of them.
    let out = run(&["--head-chars", "100", "--json"], b"[1]");
    let object: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&object["json_ended_at"], &object["json_items"]),
        (&serde_json::Value::Null, &serde_json::Value::Null)
    );
}

#[test]
fn notice_format_has_placeholders_for_the_counts() {
    let format = "{json_items_kept}/{json_items} in {json_arrays_cut}, {json_strings_cut} cut, \
                  {json_documents_kept}/{json_documents} docs, end {json_ended_at}.";
    let args =
        ["--head-chars", "100", "--json-items", "1", "--json-string-chars", "1", "--notice-format", format];
    assert_eq!(
        run(&args, b"[\"ab\", 2]\n[3]\n"),
        "[\"a…[+1 chars]\"]\n[3]\n1/2 in 1, 1 cut, 2/2 docs, end .\n"
    );
    let args = ["--head-chars", "3", "--json-items", "1", "--notice-format", "ended at {json_ended_at}"];
    assert_eq!(run(&args, b"[1] !"), "[1]\nended at 4\n");
}

#[test]
fn json_items_goes_with_a_head_cap_and_output_that_stays_json() {
    let cases: &[(&[&str], &str)] = &[
        (&["--json-items", "5"], "--json-items goes with --head-chars or --head-lines"),
        (&["--tail-lines", "5", "--json-items", "5"], "--json-items goes with --head-chars or --head-lines"),
        (&["-n", "5", "--offset", "2", "--json-items", "5"], "--offset does not go with --json-items"),
        (&["-n", "5", "-N", "--json-items", "5"], "--line-numbers does not go with --json-items"),
        (&["--head-chars", "5", "--keep", "x", "--json-items", "5"], "--keep does not go with --json-items"),
        (
            &["--head-chars", "5", "--stop-at-cap", "--json-items", "5"],
            "--stop-at-cap does not go with --json-items",
        ),
        (
            &["--head-chars", "5", "--max-line-chars", "9", "--json-items", "5"],
            "--max-line-chars with --head-chars does not go with --json-items",
        ),
        (&["--head-chars", "5", "--json-string-chars", "5"], "--json-string-chars goes with --json-items"),
        (&["--head-chars", "5", "--json-items", "0"], "0 is not in 1 to 18446744073709551615"),
    ];
    for (args, message) in cases {
        let stderr = refused(args);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// Profile `tool`: 8000 characters, JSON cut as JSON, text as text.
#[test]
fn profile_tool_cuts_json_as_json_and_text_as_text() {
    let big = issues(200);
    let out = run(&["--profile", "tool", "--notice", "stderr"], big.as_bytes());
    assert!(out.chars().count() <= 8000, "{} chars", out.chars().count());
    assert!(jq_parses(out.as_bytes()));
    let out = run(&["--profile", "tool"], "x".repeat(9000).as_bytes());
    assert_eq!(out, format!("{}\n... (truncated, showing first 8000 chars)\n", "x".repeat(8000)));
}

/// Profile `read`: a JSON output is cut as JSON within its budget of
/// 8000 characters; an offset pages lines as before.
#[test]
fn profile_read_cuts_json_and_pages_lines_with_an_offset() {
    let list = kubectl_list(100);
    let out = run(&["--profile", "read", "--notice", "stderr"], list.as_bytes());
    assert!(out.chars().count() <= 8000, "{} chars", out.chars().count());
    assert!(jq_parses(out.as_bytes()));
    let out = run(&["--profile", "read", "--offset", "2", "-n", "2"], b"[\n1,\n2,\n3\n]\n");
    assert_eq!(out, "2,\n3\n... (truncated, showing lines 3-4 of 5, next offset 4)\n");
}

#[test]
fn show_config_tells_the_cut_of_json() {
    let out = run(&["--profile", "tool", "--show-config"], b"");
    for line in [
        "--head-chars 8000\tprofile tool",
        "--json-items 50\tprofile tool",
        "--json-string-chars 1000\tbuilt-in",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} in {out}");
    }
}

/// Checks one cut of a real document: it parses with jq, its values are
/// the input's first items, and it fits in `chars` characters.
fn check_real(name: &str, document: &[u8], args: &[&str], cut: Cut, chars: usize) {
    let mut all = args.to_vec();
    all.extend(["--notice", "stderr"]);
    let out = run(&all, document);
    assert!(jq_parses(out.as_bytes()), "{name}: {out}");
    assert!(out.chars().count() <= chars, "{name}: {} chars", out.chars().count());
    check_values(document, out.as_bytes(), cut).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(jq_parses(document), "{name}");
}

fn tool_cut(items: u64) -> Cut {
    Cut { items, string_chars: 1000, budget: 8000, bytes: false, documents: u64::MAX }
}

/// `cargo metadata` of this workspace, for the platform it is built on
/// (whose packages the build has fetched: no network).
#[test]
fn cargo_metadata_of_this_workspace() {
    let cargo = env!("CARGO");
    let version = Command::new(cargo).arg("-vV").output().expect("cargo runs");
    let version = String::from_utf8(version.stdout).unwrap();
    let host = version.lines().find_map(|l| l.strip_prefix("host: ")).expect("cargo names its host");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
            host,
            "--manifest-path",
        ])
        .arg(manifest)
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.len() > 100_000, "a document to cut: {} bytes", out.stdout.len());
    check_real("cargo metadata", &out.stdout, &["--profile", "tool"], tool_cut(50), 8000);
    let cut = Cut { items: 5, string_chars: 40, budget: 2000, bytes: false, documents: u64::MAX };
    let args = ["--head-chars", "2000", "--json-items", "5", "--json-string-chars", "40"];
    check_real("cargo metadata", &out.stdout, &args, cut, 2000);
}

/// `npm ls --json --all` of the test dependencies of crates/node,
/// recorded (fixtures/json/README.md).
#[test]
fn npm_ls_of_a_real_project() {
    let document = std::fs::read(fixture("npm-ls-all.json")).unwrap();
    let cut = Cut { items: 3, string_chars: 10, budget: 900, bytes: false, documents: u64::MAX };
    let args = ["--head-chars", "900", "--json-items", "3", "--json-string-chars", "10"];
    check_real("npm ls", &document, &args, cut, 900);
    // Passed through whole when it fits.
    assert_eq!(run(&["--profile", "tool"], &document).as_bytes(), document);
}

#[test]
fn a_github_api_list_of_issues() {
    let document = issues(100);
    check_real("GitHub issues", document.as_bytes(), &["--profile", "tool"], tool_cut(50), 8000);
    let cut = Cut { items: 2, string_chars: 30, budget: 3000, bytes: false, documents: u64::MAX };
    let args = ["--head-chars", "3000", "--json-items", "2", "--json-string-chars", "30"];
    check_real("GitHub issues", document.as_bytes(), &args, cut, 3000);
}

#[test]
fn kubectl_lists() {
    let list = kubectl_list(300);
    check_real("kubectl list", list.as_bytes(), &["--profile", "tool"], tool_cut(50), 8000);
    let cut = Cut { items: 50, string_chars: 1000, budget: 8000, bytes: false, documents: 500 };
    check_real("kubectl list", list.as_bytes(), &["--profile", "read"], cut, 8000);
    // kubectl's own output, five documents one after another.
    let created = std::fs::read(fixture("kubectl-create-dry-run.json")).unwrap();
    let cut = Cut { items: 2, string_chars: 5, budget: 1500, bytes: false, documents: 4 };
    let args = ["-n", "4", "--budget-chars", "1500", "--json-items", "2", "--json-string-chars", "5"];
    check_real("kubectl create", &created, &args, cut, 1500);
    let out = run(&args, &created);
    assert!(out.ends_with("documents)\n"), "{out}");
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json").join(name)
}

/// A page of `GET /repos/{owner}/{repo}/issues` of GitHub's REST API, in
/// its shape (the fields of its schema, pretty-printed as `gh api`
/// prints them), with `n` issues whose bodies are long Markdown.
fn issues(n: usize) -> String {
    let repo = "https://api.github.com/repos/octo-org/octo-repo";
    let issues: Vec<serde_json::Value> = (1..=n)
        .map(|i| {
            let login = ["octocat", "hubot", "monalisa"][i % 3];
            let user = serde_json::json!({
                "login": login,
                "id": 583_231 + i,
                "node_id": format!("MDQ6VXNlcj{i:05}"),
                "avatar_url": format!("https://avatars.githubusercontent.com/u/{}?v=4", 583_231 + i),
                "gravatar_id": "",
                "url": format!("https://api.github.com/users/{login}"),
                "html_url": format!("https://github.com/{login}"),
                "followers_url": format!("https://api.github.com/users/{login}/followers"),
                "following_url": format!("https://api.github.com/users/{login}/following{{/other_user}}"),
                "repos_url": format!("https://api.github.com/users/{login}/repos"),
                "type": "User",
                "site_admin": false,
            });
            serde_json::json!({
                "url": format!("{repo}/issues/{i}"),
                "repository_url": repo,
                "labels_url": format!("{repo}/issues/{i}/labels{{/name}}"),
                "comments_url": format!("{repo}/issues/{i}/comments"),
                "events_url": format!("{repo}/issues/{i}/events"),
                "html_url": format!("https://github.com/octo-org/octo-repo/issues/{i}"),
                "id": 1_296_269_000 + i,
                "node_id": format!("I_kwDOABCD{i:06}"),
                "number": i,
                "title": format!("Parsing fails on input {i} with \"unexpected token\""),
                "user": user,
                "labels": [
                    {"id": 208_045_946, "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=", "url": format!("{repo}/labels/bug"),
                     "name": "bug", "description": "Something isn't working", "color": "f29513", "default": true},
                    {"id": 208_045_947, "node_id": "MDU6TGFiZWwyMDgwNDU5NDc=", "url": format!("{repo}/labels/parser"),
                     "name": "parser", "description": "The tokenizer and its grammar", "color": "0e8a16", "default": false}
                ],
                "state": if i % 4 == 0 { "closed" } else { "open" },
                "locked": false,
                "assignee": null,
                "assignees": [],
                "milestone": null,
                "comments": i % 7,
                "created_at": format!("2024-{:02}-{:02}T12:00:00Z", 1 + i % 12, 1 + i % 28),
                "updated_at": "2024-06-01T08:30:00Z",
                "closed_at": null,
                "author_association": "CONTRIBUTOR",
                "active_lock_reason": null,
                "body": format!(
                    "### Steps to reproduce\n\n1. Run `tool --input case-{i}.json`\n2. See the error:\n\n```\nerror: \
                     unexpected token at line {i}, column 17\n```\n\n### Expected\n\nThe document parses. Ünïcödé \
                     and emoji 🚀 are in the input too.\n\n{}",
                    "More context follows. ".repeat(20)
                ),
                "reactions": {"url": format!("{repo}/issues/{i}/reactions"), "total_count": i % 5, "+1": i % 3,
                              "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 1, "rocket": 0, "eyes": 0},
                "timeline_url": format!("{repo}/issues/{i}/timeline"),
                "performed_via_github_app": null,
                "state_reason": null,
            })
        })
        .collect();
    serde_json::to_string_pretty(&issues).unwrap()
}

/// `kubectl get pods -o json` of `n` pods: a `v1 List` whose items are
/// Pods with the fields of the published schema (`io.k8s.api.core.v1.Pod`:
/// metadata, spec, status), their spec taken from what `kubectl create
/// deployment --dry-run=client -o json` gives for its template
/// (fixtures/json).
fn kubectl_list(n: usize) -> String {
    let created = std::fs::read(fixture("kubectl-create-dry-run.json")).unwrap();
    let deployment: serde_json::Value =
        serde_json::Deserializer::from_slice(&created).into_iter().next().unwrap().unwrap();
    let spec = deployment["spec"]["template"]["spec"].clone();
    let items: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let name = format!("web-7d4b9c8f6-{i:05x}");
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": name,
                    "generateName": "web-7d4b9c8f6-",
                    "namespace": "default",
                    "uid": format!("3f0a2c1e-8b7d-4e6f-9a1b-{i:012x}"),
                    "resourceVersion": format!("{}", 400_000 + i),
                    "creationTimestamp": "2024-05-01T12:00:00Z",
                    "labels": {"app": "web", "pod-template-hash": "7d4b9c8f6"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c8f6",
                        "uid": "9c1d2e3f-0a1b-4c5d-8e7f-000000000001", "controller": true, "blockOwnerDeletion": true}]
                },
                "spec": spec,
                "status": {
                    "phase": "Running",
                    "conditions": [
                        {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T12:00:00Z"},
                        {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T12:00:05Z"},
                        {"type": "ContainersReady", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T12:00:05Z"},
                        {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T12:00:00Z"}
                    ],
                    "hostIP": "10.0.0.4",
                    "podIP": format!("10.244.{}.{}", i / 250, i % 250 + 2),
                    "podIPs": [{"ip": format!("10.244.{}.{}", i / 250, i % 250 + 2)}],
                    "startTime": "2024-05-01T12:00:00Z",
                    "containerStatuses": [{"name": "nginx", "state": {"running": {"startedAt": "2024-05-01T12:00:04Z"}},
                        "lastState": {}, "ready": true, "restartCount": 0, "image": "docker.io/library/nginx:1.27",
                        "imageID": "docker.io/library/nginx@sha256:0c1f3b2a4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8",
                        "containerID": format!("containerd://{i:064x}"), "started": true}],
                    "qosClass": "BestEffort"
                }
            })
        })
        .collect();
    let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}});
    serde_json::to_string_pretty(&list).unwrap() + "\n"
}

/// A `--json-items` from a default gives way to what a later layer asks
/// that its output cannot have; a default it does not go with gives way
/// to it.
#[test]
fn a_default_json_items_gives_way_to_the_command_line() {
    let input = b"[1,\n2,\n3]\n";
    assert_eq!(
        run(&["--profile", "tool", "--tail-chars", "4"], input),
        "\n3]\n... (truncated, showing last 4 chars)\n"
    );
    assert_eq!(
        run(&["--profile", "read", "-N", "-n", "1"], input),
        "     1\t[1,\n... (truncated, showing lines 1-1 of 3, next offset 1)\n"
    );
    let out = crate::common::capout()
        .env("CAPOUT_OPTS", "--stop-at-cap")
        .args(["--profile", "tool"])
        .write_stdin(&input[..])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, input);
    let out = crate::common::capout()
        .env("CAPOUT_OPTS", "-n 5 --json-items 1")
        .args(["--keep", "3"])
        .write_stdin(&input[..])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, input);
}
