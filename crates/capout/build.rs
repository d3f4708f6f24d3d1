//! Links the `capout` filter on Linux with glibc without `libgcc_s`.
//!
//! Rust's standard library takes its unwinder (used by the filter only for
//! a panic's backtrace) from the shared `libgcc_s`, whose loading and
//! start-up (`__cpu_indicator_init`, a dozen `cpuid`s, each a trap in a
//! virtual machine) cost a tenth of a short run, which is what every
//! hooked shell call pays. Named before it, GCC's static unwinder
//! `libgcc_eh` provides the same functions, and the linker, which links
//! shared libraries only as needed, leaves `libgcc_s` out.
//!
//! Nothing here names a file of the source tree, so a build does not
//! depend on where the tree lies.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS");
    let env = std::env::var("CARGO_CFG_TARGET_ENV");
    if os.as_deref() == Ok("linux") && env.as_deref() == Ok("gnu") {
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}
