//! Where a command's output goes: regular files replaced atomically, devices and FIFOs written
//! through, `-` for standard output, never an input file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, then a rename,
/// so a failure never leaves a half-written model. `path` must be (or become) a regular file; use
/// [`Output`] to write to what a user names on the command line.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().with_context(|| format!("{}: not a file path", path.display()))?;
    // Keep the permissions of the file being replaced.
    let permissions = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.permissions());
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{}.{}.{attempt}.tmp", name.to_string_lossy(), std::process::id()));
        // `create_new` never follows a symlink or reuses a file someone else put there.
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e).with_context(|| format!("{}: cannot write model", path.display())),
        }
    };
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(p) = permissions {
            file.set_permissions(p)?;
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("{}: cannot write model", path.display()));
    }
    Ok(())
}

/// Where a command's output file goes, decided before any work is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `-`: standard output.
    Stdout,
    /// A regular file (existing or not), after following symlinks: written atomically in its
    /// own directory.
    File(PathBuf),
    /// A character or block device or a FIFO (`/dev/null`, `mkfifo`): written through, never
    /// replaced.
    Device(PathBuf),
}

/// Follows `path` through symlinks (also dangling ones, whose target is then created).
pub(crate) fn resolve_symlinks(path: &Path) -> Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)
                    .with_context(|| format!("{}: cannot read the symlink", path.display()))?;
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                path = dir.join(target);
            }
            _ => return Ok(path),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

#[cfg(unix)]
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
pub(crate) fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

impl Output {
    /// Decides how to write `path`: `-` is standard output; symlinks are followed; a device or
    /// FIFO is written through; anything else that exists and is not a regular file is refused,
    /// and so is any of `inputs` (compared by file identity, so a symlink or a hard link to an
    /// input is caught too).
    ///
    /// # Errors
    /// `path` is a directory, a socket or other non-regular file, or one of `inputs`.
    pub fn resolve(path: &Path, inputs: &[&Path]) -> Result<Output> {
        if path.as_os_str() == "-" {
            return Ok(Output::Stdout);
        }
        let target = resolve_symlinks(path)?;
        let shown = if target == path {
            path.display().to_string()
        } else {
            format!("{} (-> {})", path.display(), target.display())
        };
        let Ok(meta) = std::fs::metadata(&target) else {
            return Ok(Output::File(target));
        };
        for input in inputs {
            // `-` reads standard input, which may be redirected from this very file.
            // (A device or FIFO that is also standard input is written through, as any device.)
            if input.as_os_str() == "-" && !meta.is_file() {
                continue;
            }
            let (probe, what) = if input.as_os_str() == "-" {
                (Path::new("/dev/stdin"), "standard input".to_string())
            } else {
                (*input, format!("the input file {}", input.display()))
            };
            if std::fs::metadata(probe).is_ok_and(|m| same_file(&m, &meta)) {
                bail!("{shown}: is {what}; refusing to overwrite it (choose another -o)");
            }
        }
        let kind = meta.file_type();
        if kind.is_file() {
            return Ok(Output::File(target));
        }
        if kind.is_dir() {
            bail!("{shown}: is a directory; give a file name with -o");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_char_device() || kind.is_block_device() || kind.is_fifo() {
                return Ok(Output::Device(target));
            }
        }
        bail!("{shown}: is not a regular file, a device or a FIFO; refusing to replace it")
    }

    /// Writes `bytes`: atomically for a file, straight through for a device or stdout.
    ///
    /// # Errors
    /// The write fails (nothing is left behind for a file).
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        match self {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush()).context("cannot write the model to stdout")
            }
            Output::File(path) => write_atomic(path, bytes),
            Output::Device(path) => {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("{}: cannot open for writing", path.display()))?;
                f.write_all(bytes)
                    .and_then(|()| f.flush())
                    .with_context(|| format!("{}: cannot write model", path.display()))
            }
        }
    }

    /// How reports name it.
    pub fn describe(&self) -> String {
        match self {
            Output::Stdout => "(stdout)".into(),
            Output::File(p) | Output::Device(p) => p.display().to_string(),
        }
    }
}
