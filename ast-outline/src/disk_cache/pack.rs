//! A *pack*: many cache entries in one file, after git's pack files, so that
//! a warm run reads each entry with one positioned read instead of opening,
//! reading and closing one file per source file.
//!
//! Layout (integers little-endian):
//! - the entries, one after the other, each byte for byte what a loose entry
//!   file holds (so it is checked the same way when read);
//! - the index: one 32-byte slot per entry, sorted by key, keys unique:
//!   key (`u128`, the entry's name as a number), offset (`u64`, from the
//!   start of the file), length (`u32`), the hash of the file's absolute
//!   path (`u32`, to tell entries of files no longer there);
//! - the trailer, 32 bytes: [`MAGIC`] (16 bytes), the pack format (`u32`),
//!   four zero bytes, the number of slots (`u64`).
//!
//! A pack is written to a temporary file in the cache directory and renamed
//! into place, so a reader sees the old pack or the new one, whole. Anything
//! unexpected in a pack (a short file, a slot out of bounds, unsorted keys)
//! makes the whole pack unused; an entry whose bytes are damaged is a miss
//! like a damaged loose entry.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;

/// The first 16 bytes of a pack's trailer.
const MAGIC: &[u8; 16] = b"ast-outline-pack";

/// The version of the pack layout.
const PACK_FORMAT: u32 = 2;

/// Bytes of one index slot, and of the trailer.
const SLOT: u64 = 32;

/// Most slots a pack may claim (a larger claim is a damaged pack, and must
/// not decide how much memory is asked for).
const MAX_SLOTS: u64 = 1 << 24;

/// Where one entry is in a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    /// The entry's key (its loose file name, as a number).
    pub key: u128,
    /// Offset of its first byte in the pack.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u32,
    /// The hash of its source file's absolute path.
    pub file: u32,
}

/// An open pack: its file and its index, read once.
#[derive(Debug)]
pub(super) struct Pack {
    file: File,
    /// Slots sorted by key.
    slots: Vec<Slot>,
    /// What the file system said about the pack file when it was opened.
    pub status: Option<super::FileStatus>,
}

impl Pack {
    /// The pack at `path`, when there is one and it is well formed.
    pub fn open(path: &Path) -> Option<Pack> {
        let file = super::open_entry(path).ok()?;
        let meta = file.metadata().ok()?;
        let size = meta.len();
        let mut trailer = [0u8; SLOT as usize];
        read_exact_at(&file, &mut trailer, size.checked_sub(SLOT)?).ok()?;
        let (magic, rest) = trailer.split_at(16);
        (magic == MAGIC).then_some(())?;
        (le_u32(rest, 0)? == PACK_FORMAT).then_some(())?;
        let count = le_u64(rest, 8)?;
        (count <= MAX_SLOTS).then_some(())?;
        let index_len = count.checked_mul(SLOT)?;
        let index_at = size.checked_sub(SLOT)?.checked_sub(index_len)?;
        let mut index = vec![0u8; usize::try_from(index_len).ok()?];
        read_exact_at(&file, &mut index, index_at).ok()?;
        let mut slots = Vec::with_capacity(index.len() / SLOT as usize);
        for raw in index.chunks_exact(SLOT as usize) {
            let slot = Slot {
                key: u128::from_le_bytes(raw.get(..16)?.try_into().ok()?),
                offset: le_u64(raw, 16)?,
                len: le_u32(raw, 24)?,
                file: le_u32(raw, 28)?,
            };
            let end = slot.offset.checked_add(u64::from(slot.len))?;
            (end <= index_at).then_some(())?;
            if let Some(last) = slots.last().map(|s: &Slot| s.key) {
                (last < slot.key).then_some(())?;
            }
            slots.push(slot);
        }
        Some(Pack {
            file,
            slots,
            status: super::FileStatus::of(&meta),
        })
    }

    /// The bytes of the entry with `key`, if the pack holds one (and it can
    /// be read).
    pub fn get(&self, key: u128) -> Option<Vec<u8>> {
        let at = self.slots.binary_search_by_key(&key, |s| s.key).ok()?;
        self.read(self.slots.get(at)?)
    }

    /// The bytes of the entry at `slot`.
    pub fn read(&self, slot: &Slot) -> Option<Vec<u8>> {
        let mut bytes = vec![0u8; usize::try_from(slot.len).ok()?];
        read_exact_at(&self.file, &mut bytes, slot.offset).ok()?;
        Some(bytes)
    }

    /// Every slot, sorted by key.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// How many entries the pack holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
}

/// A pack being written: entries are appended as they come; [`finish`]
/// writes the index and trailer and renames it into place.
///
/// [`finish`]: PackWriter::finish
#[derive(Debug)]
pub(super) struct PackWriter {
    out: BufWriter<tempfile::NamedTempFile>,
    slots: Vec<Slot>,
    written: u64,
}

impl PackWriter {
    /// A new, empty pack in a temporary file in `dir`.
    ///
    /// # Errors
    /// When the temporary file cannot be made.
    pub fn new_in(dir: &Path) -> std::io::Result<PackWriter> {
        Ok(PackWriter {
            out: BufWriter::with_capacity(1 << 16, tempfile::NamedTempFile::new_in(dir)?),
            slots: Vec::new(),
            written: 0,
        })
    }

    /// Appends the entry with `key`, of the source file whose path hashes to
    /// `file`, made of `parts` one after the other. A key added twice keeps
    /// its last entry.
    ///
    /// # Errors
    /// When writing fails, or the entry is 4 GiB or more.
    pub fn add(&mut self, key: u128, file: u32, parts: &[&[u8]]) -> std::io::Result<()> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let len = u32::try_from(len).map_err(|_| std::io::Error::other("entry too large"))?;
        for part in parts {
            self.out.write_all(part)?;
        }
        self.slots.push(Slot {
            key,
            offset: self.written,
            len,
            file,
        });
        self.written += u64::from(len);
        Ok(())
    }

    /// The keys added so far.
    pub fn keys(&self) -> impl Iterator<Item = u128> + '_ {
        self.slots.iter().map(|s| s.key)
    }

    /// Writes the index and trailer and renames the pack to `path`.
    ///
    /// # Errors
    /// When writing or renaming fails (the temporary file is then removed).
    pub fn finish(mut self, path: &Path) -> std::io::Result<()> {
        // The last entry added for a key wins: a stable sort keeps the order
        // of equal keys, and the last of each run is kept.
        self.slots.sort_by_key(|s| s.key);
        let mut slots: Vec<Slot> = Vec::with_capacity(self.slots.len());
        for slot in self.slots {
            match slots.last_mut() {
                Some(last) if last.key == slot.key => *last = slot,
                _ => slots.push(slot),
            }
        }
        for slot in &slots {
            self.out.write_all(&slot.key.to_le_bytes())?;
            self.out.write_all(&slot.offset.to_le_bytes())?;
            self.out.write_all(&slot.len.to_le_bytes())?;
            self.out.write_all(&slot.file.to_le_bytes())?;
        }
        self.out.write_all(MAGIC)?;
        self.out.write_all(&PACK_FORMAT.to_le_bytes())?;
        self.out.write_all(&[0; 4])?;
        self.out.write_all(&(slots.len() as u64).to_le_bytes())?;
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Fills `buf` from `file` at `offset` (a positioned read: the file is
/// shared by threads). Packs are only read on Unix; elsewhere every pack is
/// unused, and entries are read from their own files.
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(_file: &File, _buf: &mut [u8], _offset: u64) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn le_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_gives_back_each_entry_by_key_and_the_last_of_a_repeated_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("pack");
        let mut writer = PackWriter::new_in(dir.path()).expect("writer");
        writer.add(7, 70, &[b"seven"]).expect("add");
        writer.add(3, 30, &[b"th", b"ree"]).expect("add");
        writer.add(7, 71, &[b"SEVEN!"]).expect("add");
        writer.finish(&path).expect("finish");
        let pack = Pack::open(&path).expect("open");
        assert_eq!(pack.len(), 2);
        assert_eq!(pack.get(3).as_deref(), Some(&b"three"[..]));
        assert_eq!(pack.get(7).as_deref(), Some(&b"SEVEN!"[..]));
        assert_eq!(pack.get(5), None);
    }

    #[test]
    fn a_damaged_pack_is_not_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("pack");
        let mut writer = PackWriter::new_in(dir.path()).expect("writer");
        writer.add(1, 10, &[b"one"]).expect("add");
        writer.finish(&path).expect("finish");
        let good = std::fs::read(&path).expect("read");
        // Cut short, a wrong magic, a slot pointing past the data, a count
        // larger than the file: each makes the pack unused, never a panic.
        let mut cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            good[..good.len() - 1].to_vec(),
            good[1..].to_vec(),
        ];
        let mut magic = good.clone();
        magic[good.len() - 32] ^= 1;
        cases.push(magic);
        let mut offset = good.clone();
        offset[good.len() - 64 + 16] = 200;
        cases.push(offset);
        let mut count = good.clone();
        count[good.len() - 8] = 2;
        cases.push(count);
        for bytes in cases {
            std::fs::write(&path, &bytes).expect("write");
            assert!(Pack::open(&path).is_none(), "{bytes:?}");
        }
    }
}
