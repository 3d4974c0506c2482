//! The `ast-outline` command. Everything lives in the library's [`ast_outline::cli`].

/// mimalloc: building an index allocates and frees millions of small strings
/// and vectors from several threads, where glibc's allocator took about a
/// quarter of the time (`perf` on the Python standard library).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ast_outline::cli::main()
}
