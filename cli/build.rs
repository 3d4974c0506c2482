//! Names the git commit the binary is built from, for `ast-outline
//! --version`: `AST_OUTLINE_COMMIT` when the environment sets it (a build
//! from a source archive), else `git rev-parse HEAD` of the checkout, with
//! `-modified` when tracked files differ from it; `unknown` outside git.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    Some(String::from_utf8(output.stdout).ok()?.trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=AST_OUTLINE_COMMIT");
    let commit = match std::env::var("AST_OUTLINE_COMMIT") {
        Ok(commit) if !commit.is_empty() => commit,
        _ => match git(&["rev-parse", "HEAD"]) {
            Some(head) => {
                // Rebuild when HEAD moves or the index changes (a commit,
                // a checkout, a stage); the source files themselves make
                // cargo rebuild the crate anyway.
                if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
                    for file in ["HEAD", "index", "packed-refs"] {
                        let path = Path::new(&dir).join(file);
                        if path.exists() {
                            println!("cargo:rerun-if-changed={}", path.display());
                        }
                    }
                    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
                        let path = Path::new(&dir).join(branch);
                        if path.exists() {
                            println!("cargo:rerun-if-changed={}", path.display());
                        }
                    }
                }
                let clean = git(&["status", "--porcelain", "--untracked-files=no"])
                    .is_some_and(|status| status.is_empty());
                let short = head.get(..12).unwrap_or(&head).to_owned();
                if clean {
                    short
                } else {
                    format!("{short}-modified")
                }
            }
            None => "unknown".to_owned(),
        },
    };
    println!("cargo:rustc-env=AST_OUTLINE_COMMIT={commit}");
}
