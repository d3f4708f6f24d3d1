//! With the feature `bundle-binaries` (which the wheel's build turns on,
//! see pyproject.toml), builds the `capout` and `capout-mcp` executables
//! for the same target and puts them in the wheel's scripts
//! (packaging/wheel-data/scripts), so that one `pip install .` gives
//! both `import capout` and the commands: maturin builds either an
//! extension or executables, never both in one wheel.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_BUNDLE_BINARIES").is_none() {
        return;
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    for watched in ["crates/capout", "crates/core", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bins");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // A target directory of its own: the outer build holds the lock of
    // its own. The linker settings (maturin's zig, for manylinux) come
    // through the environment, as they came to this build. Both programs
    // in one build, in the profile that unwinds on a panic, so that their
    // dependencies are compiled once (not once for each profile): the
    // server needs it (a panic in a call is an error of that call, see
    // the workspace's Cargo.toml), and for the filter a panic is a bug
    // told on stderr either way.
    let profile = "release-unwind";
    let status = Command::new(&cargo)
        .current_dir(&root)
        .args(["build", "--locked", "-p", "capout", "--bin", "capout", "--bin", "capout-mcp"])
        .args(["--target", &target, "--profile", profile])
        .args(["--config", &format!("profile.{profile}.strip=true")])
        .arg("--target-dir")
        .arg(&out)
        // The outer build's flags are the extension's, not the programs'.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .status()
        .expect("cannot run cargo to build capout's executables");
    assert!(status.success(), "building capout and capout-mcp failed: {status}");
    let built = ["capout", "capout-mcp"].map(|name| (name, out.join(&target).join(profile).join(name)));
    let scripts = root.join("packaging/wheel-data/scripts");
    std::fs::create_dir_all(&scripts).expect("cannot make packaging/wheel-data/scripts");
    for (name, built) in built {
        std::fs::copy(&built, scripts.join(name))
            .unwrap_or_else(|e| panic!("cannot copy {} into the wheel's scripts: {e}", built.display()));
    }
}
