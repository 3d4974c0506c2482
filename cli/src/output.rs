//! Writing to standard output and standard error, for every command.

use std::io::Write;

/// Writes `text` to standard output. When the reader has gone away (a closed
/// pipe, as with `| head`), exits quietly with status 0 as other command-line
/// tools do; any other write error (a full disk) is reported, with status 1.
pub(crate) fn print_or_exit(text: &str) {
    print_all_or_exit(&[text]);
}

/// [`print_or_exit`] for several texts one after the other, written with
/// vectored writes (no copy into one buffer).
pub(crate) fn print_all_or_exit<T: AsRef<str>>(texts: &[T]) {
    let mut stdout = std::io::stdout().lock();
    match write_all_vectored(&mut stdout, texts).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            report(format!("cannot write the output: {error}"));
            std::process::exit(1);
        }
    }
}

/// Writes every text of `texts` in order to `out`, as few vectored writes as
/// the writer takes.
///
/// # Errors
/// The writer's, or [`std::io::ErrorKind::WriteZero`] when it takes nothing.
fn write_all_vectored<T: AsRef<str>>(out: &mut impl Write, texts: &[T]) -> std::io::Result<()> {
    let mut slices: Vec<std::io::IoSlice<'_>> = texts
        .iter()
        .map(|t| t.as_ref().as_bytes())
        .filter(|b| !b.is_empty())
        .map(std::io::IoSlice::new)
        .collect();
    let mut rest = slices.as_mut_slice();
    while !rest.is_empty() {
        match out.write_vectored(rest) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(written) => std::io::IoSlice::advance_slices(&mut rest, written),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Prints an error message on standard error, prefixed with the tool's name.
pub(crate) fn report(message: impl std::fmt::Display) {
    eprintln!("ast-outline: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes at most `step` bytes per call, and only from the
    /// first slice of a vectored write (as the default method does).
    struct Trickle {
        out: Vec<u8>,
        step: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn vectored_output_survives_short_writes_and_keeps_the_order() {
        let texts = ["alpha\n", "", "\n", "beta gamma\n", "δ\n"];
        for step in [1, 2, 3, 7, 100] {
            let mut out = Trickle {
                out: Vec::new(),
                step,
            };
            write_all_vectored(&mut out, &texts).expect("write");
            assert_eq!(String::from_utf8(out.out).expect("utf8"), texts.concat());
        }
        let mut stuck = Trickle {
            out: Vec::new(),
            step: 0,
        };
        let error = write_all_vectored(&mut stuck, &texts).expect_err("nothing taken");
        assert_eq!(error.kind(), std::io::ErrorKind::WriteZero);
    }
}
