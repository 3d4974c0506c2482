//! Where a [`crate::Resolver`] reads the project's files from: a slice held
//! in memory, or a source that loads each file when a lookup first needs it
//! (the `index` crate's refresh of one edited file, which then reads a few
//! files of a large project instead of all of them).

use outline_core::xref::Facts;

use crate::{Definition, FileInput};

/// The project's files as a resolver reads them, numbered `0..len()`.
///
/// The path and module of every file are at hand (they make the module
/// table); definitions and facts may be loaded on demand. A source whose
/// [`Source::on_demand`] is true also answers the two project-wide lookups
/// ([`Source::named`], [`Source::bases`]) itself, so that the resolver never
/// has to read every file; a lookup through a Rust impl block is then not
/// available (see [`crate::Resolver::with_source`]).
pub trait Source {
    /// How many files there are.
    fn len(&self) -> usize;

    /// Whether there is no file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// File `f`'s path (`/`-separated, as in the ids); `None` out of range.
    fn path(&self, f: usize) -> Option<&str>;

    /// File `f`'s dotted module name ([`FileInput::module`]).
    fn module(&self, f: usize) -> Option<&str>;

    /// Whether file `f` is a package's `__init__`.
    fn is_package(&self, f: usize) -> bool;

    /// File `f`'s definitions in source order (`None`: out of range, or it
    /// could not be loaded).
    fn definitions(&self, f: usize) -> Option<&[Definition]>;

    /// File `f`'s facts (`None` as for [`Source::definitions`]).
    fn facts(&self, f: usize) -> Option<&Facts>;

    /// Whether definitions and facts are loaded on demand: the resolver
    /// then asks [`Source::named`] and [`Source::bases`] instead of building
    /// those tables from every file.
    fn on_demand(&self) -> bool {
        false
    }

    /// Every (file, definition index) named `name` whose qualname has a dot
    /// (`member`) or not, blocks left out, in file then source order. Only
    /// asked when [`Source::on_demand`].
    fn named(&self, name: &str, member: bool) -> Vec<(usize, usize)> {
        let _ = (name, member);
        Vec::new()
    }

    /// The bases of class (or type) `d` of file `f`, in order, as the last
    /// full resolution of the project found them. Only asked when
    /// [`Source::on_demand`].
    fn bases(&self, f: usize, d: usize) -> Vec<(usize, usize)> {
        let _ = (f, d);
        Vec::new()
    }
}

impl Source for [FileInput] {
    fn len(&self) -> usize {
        <[FileInput]>::len(self)
    }

    fn path(&self, f: usize) -> Option<&str> {
        self.get(f).map(|file| file.path.as_str())
    }

    fn module(&self, f: usize) -> Option<&str> {
        self.get(f)?.module.as_deref()
    }

    fn is_package(&self, f: usize) -> bool {
        self.get(f).is_some_and(|file| file.is_package)
    }

    fn definitions(&self, f: usize) -> Option<&[Definition]> {
        self.get(f).map(|file| file.definitions.as_slice())
    }

    fn facts(&self, f: usize) -> Option<&Facts> {
        self.get(f).map(|file| &file.facts)
    }
}
