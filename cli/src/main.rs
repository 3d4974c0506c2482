//! The `ast-outline` command. Everything lives in the library's [`ast_outline::cli`].

fn main() -> std::process::ExitCode {
    ast_outline::cli::main()
}
