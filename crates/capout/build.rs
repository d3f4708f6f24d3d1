//! Links the `capout` filter on Linux as a position-dependent executable,
//! with the code no common run executes placed after the rest, and
//! without `libgcc_s`.
//!
//! A position-independent executable has its pointers in read-only data
//! relocated by the dynamic loader at every start, which writes to each
//! page that holds one; linked at a fixed address, those pages stay clean
//! and untouched. That is about half a MiB of peak memory for every run of
//! the filter (its peak RSS must stay under 4 MiB). The filter's code is the
//! same: only where the executable is loaded is fixed.
//!
//! `link/cold.ld` moves the code of the rarer modes (`--render`, the token
//! caps, running a command, `--json`, the config file, help and error
//! messages, panics' backtraces) into a section of its own after the rest
//! of the code: the kernel maps code 64 KiB around each page that a run
//! touches, so code that a run skips but that lies between code it runs
//! is mapped too. That is about 0.3 MiB of peak memory for every run that
//! does not use those modes. The same script places the functions that the
//! filter's bounded runs execute before the rest of `.text`, in the order
//! `link/hot.sh` writes from their profiles: another 0.5-0.8 MiB.
//!
//! With glibc, Rust's standard library takes its unwinder (used here only
//! for a panic's backtrace) from the shared `libgcc_s`, whose loading and
//! start-up (`__cpu_indicator_init`, a dozen `cpuid`s, each a trap in a
//! virtual machine) cost a tenth of a run on a small input. Named before
//! it, GCC's static unwinder `libgcc_eh` provides the same functions, and
//! the linker, which links shared libraries only as needed, leaves
//! `libgcc_s` out.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/cold.ld");
    let os = std::env::var("CARGO_CFG_TARGET_OS");
    if os.as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=capout=-no-pie");
        // Read when the script runs, not when it is built: a copied build
        // folder then still links with this checkout's script.
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
        let mut script = std::path::Path::new(&manifest_dir).join("link").join("cold.ld");
        // zig's ld.lld (the wheel's and the npm package's manylinux build)
        // inserts only after a section it has already placed, and .fini is
        // not one: there the rare code follows .text, as GNU ld's once did.
        println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
        if std::env::var("RUSTC_LINKER").is_ok_and(|linker| linker.contains("zig"))
            && let (Ok(text), Some(out)) = (std::fs::read_to_string(&script), std::env::var_os("OUT_DIR"))
        {
            let lld = std::path::Path::new(&out).join("cold-lld.ld");
            if std::fs::write(&lld, text.replace("INSERT AFTER .fini;", "INSERT AFTER .text;")).is_ok() {
                script = lld;
            }
        }
        println!("cargo:rustc-link-arg-bin=capout=-Wl,-T,{}", script.display());
        if std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu") {
            println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
        }
    }
}
