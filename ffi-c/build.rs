//! Sets the soname of `libcodexclient.so` from the ABI major version (`src/abi.rs`), so a
//! program records `libcodexclient.so.<major>` and is never loaded with an incompatible
//! library.

#[allow(dead_code)]
mod abi {
    include!("src/abi.rs");
}

fn main() {
    println!("cargo:rerun-if-changed=src/abi.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    // ELF platforms (GNU ld, lld, gold all take -soname); macOS uses install names instead.
    if os != "macos" && os != "ios" && os != "windows" {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,-soname,libcodexclient.so.{}",
            abi::CODEX_ABI_VERSION_MAJOR
        );
    }
}
