//! Reading a small file that anyone may have put in place (a config file,
//! a harness's rule or settings file, one a project carries in git): a
//! regular file of a bounded size, read without waiting. Opening does not
//! wait for a FIFO's writer, and the descriptor that was opened is the one
//! that is checked, so that a FIFO, a device (a link to `/dev/zero` or
//! `/dev/urandom`) or a file swapped in after a check never blocks the
//! reader or makes it read without end.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

/// The size of a config, rule or settings file that is read at most: a
/// larger one is surely not one.
pub const MAX_SIZE: u64 = 1 << 20;

/// The bytes of the regular file at `path`, of at most `max` bytes. A
/// missing file is an error of kind [`io::ErrorKind::NotFound`]; one that
/// is not a regular file, or is larger, an error of kind
/// [`io::ErrorKind::InvalidData`] that says so (`it is a FIFO, not a
/// regular file`).
pub fn read(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    let what = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => None,
        FileType::Directory => Some("a directory"),
        FileType::Fifo => Some("a FIFO"),
        FileType::CharacterDevice => Some("a character device"),
        FileType::BlockDevice => Some("a block device"),
        FileType::Socket => Some("a socket"),
        _ => Some("of an unknown kind"),
    };
    if let Some(what) = what {
        return Err(invalid(format!("it is {what}, not a regular file")));
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0).min(max.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // One byte more than allowed tells a file that is too large, also one
    // that grows after the fstat.
    File::from(fd).take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        let limit =
            if max.is_multiple_of(MAX_SIZE) { format!("{} MiB", max >> 20) } else { format!("{max} bytes") };
        return Err(invalid(format!("it is larger than {limit}")));
    }
    Ok(bytes)
}

/// [`read`], of a file in UTF-8.
pub fn read_to_string(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read(path, max)?).map_err(|_| invalid("it is not valid UTF-8".into()))
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_up_to_the_limit_is_read_and_one_byte_more_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "abcd").unwrap();
        assert_eq!(read_to_string(&path, 4).unwrap(), "abcd");
        assert_eq!(read(&path, 3).unwrap_err().to_string(), "it is larger than 3 bytes");
        std::fs::write(&path, vec![b'x'; (MAX_SIZE + 1) as usize]).unwrap();
        assert_eq!(read(&path, MAX_SIZE).unwrap_err().to_string(), "it is larger than 1 MiB");
    }

    #[test]
    fn a_fifo_a_device_and_a_folder_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, Mode::from_raw_mode(0o600)).unwrap();
        assert_eq!(read(&fifo, MAX_SIZE).unwrap_err().to_string(), "it is a FIFO, not a regular file");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(
            read(&zero, MAX_SIZE).unwrap_err().to_string(),
            "it is a character device, not a regular file"
        );
        assert_eq!(
            read(dir.path(), MAX_SIZE).unwrap_err().to_string(),
            "it is a directory, not a regular file"
        );
        assert_eq!(read(&dir.path().join("none"), 1).unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
