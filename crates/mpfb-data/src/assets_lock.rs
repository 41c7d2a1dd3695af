//! The pinned contents of a complete MakeHuman assets folder (`makehuman-assets.lock`, written
//! by `cargo xtask assets-lock`): every file with its origin, size and SHA-256, and the two
//! repositories and commits they come from; and Git LFS pointers, which the asset
//! repository's archive holds instead of its images.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Where a locked file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockOrigin {
    /// A file the asset repository's archive holds as it is.
    Archive,
    /// An image the asset repository keeps in Git LFS: its archive holds a pointer, the image
    /// comes from the host's LFS media address.
    Lfs,
    /// A file of MakeHuman's own repository (the default eyes, pose units, default skeleton,
    /// T-pose), which the asset repository lacks.
    MakeHuman,
}

/// One file of a complete assets folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedFile {
    /// Where it comes from.
    pub origin: LockOrigin,
    /// Its size in bytes.
    pub size: u64,
    /// Its SHA-256, lowercase hex (for an LFS image, the object id its pointer names).
    pub sha256: String,
    /// Its path in the assets folder, `/` separated (`clothes/shoes02/shoes02.mhclo`).
    pub path: String,
}

/// A repository at a pinned commit, and the folder of it that is the assets folder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PinnedRepository {
    /// `owner/name` on GitHub.
    pub name: String,
    /// The commit, 40 hex digits.
    pub commit: String,
    /// The folder in the repository that maps to the assets folder (`base/`).
    pub prefix: String,
}

impl PinnedRepository {
    /// The commit's first seven digits, as people write it.
    pub fn short(&self) -> &str {
        self.commit.get(..7).unwrap_or(&self.commit)
    }
}

/// Every file of a complete assets folder and where each comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AssetsLock {
    /// The asset repository (files of origin [`LockOrigin::Archive`] and [`LockOrigin::Lfs`]).
    pub assets: PinnedRepository,
    /// MakeHuman's repository (files of origin [`LockOrigin::MakeHuman`]).
    pub makehuman: PinnedRepository,
    /// The files, in the lock's order.
    pub files: Vec<LockedFile>,
    by_path: HashMap<String, usize>,
}

/// A line of the lock that is not what `cargo xtask assets-lock` writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("makehuman-assets.lock:{line}: {problem}")]
pub struct LockError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

fn is_hex(text: &str, digits: usize) -> bool {
    text.len() == digits && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A plain relative path: no empty, `.` or `..` part, no root, no backslash.
fn is_plain_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// A file line's words (`origin size sha256 path`).
fn parse_file(origin: &str, size: &str, sha256: &str, path: &str) -> Result<LockedFile, String> {
    let origin = match origin {
        "archive" => LockOrigin::Archive,
        "lfs" => LockOrigin::Lfs,
        "makehuman" => LockOrigin::MakeHuman,
        other => return Err(format!("unknown origin `{other}`")),
    };
    let size = size
        .parse::<u64>()
        .map_err(|_| format!("`{size}` is not a size"))?;
    if !is_hex(sha256, 64) {
        return Err(format!("`{sha256}` is not a SHA-256"));
    }
    if !is_plain_path(path) {
        return Err(format!("`{path}` is not a plain relative path"));
    }
    Ok(LockedFile {
        origin,
        size,
        sha256: sha256.to_ascii_lowercase(),
        path: path.to_owned(),
    })
}

impl AssetsLock {
    /// The lock this build was made with.
    pub fn pinned() -> Result<&'static AssetsLock, &'static LockError> {
        static PINNED: OnceLock<Result<AssetsLock, LockError>> = OnceLock::new();
        PINNED
            .get_or_init(|| AssetsLock::parse(include_str!("makehuman-assets.lock")))
            .as_ref()
    }

    /// Parses a lock's text: `#` comments, two `repository` lines, then `origin size sha256
    /// path` lines.
    pub fn parse(text: &str) -> Result<AssetsLock, LockError> {
        let mut lock = AssetsLock::default();
        for (index, line) in text.lines().enumerate() {
            let fail = |problem: String| LockError {
                line: index + 1,
                problem,
            };
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["repository", which, name, commit, prefix] => {
                    if !is_hex(commit, 40) {
                        return Err(fail(format!("`{commit}` is not a 40-digit commit")));
                    }
                    let repository = PinnedRepository {
                        name: (*name).to_owned(),
                        commit: (*commit).to_owned(),
                        prefix: (*prefix).to_owned(),
                    };
                    match *which {
                        "archive" => lock.assets = repository,
                        "makehuman" => lock.makehuman = repository,
                        other => return Err(fail(format!("unknown repository `{other}`"))),
                    }
                }
                [origin, size, sha256, path] => {
                    let file = parse_file(origin, size, sha256, path).map_err(fail)?;
                    let at = lock.files.len();
                    if lock.by_path.insert(file.path.clone(), at).is_some() {
                        return Err(fail(format!("`{path}` is listed twice")));
                    }
                    lock.files.push(file);
                }
                _ => {
                    return Err(fail(
                        "expected `origin size sha256 path` or `repository ...`".into(),
                    ));
                }
            }
        }
        if lock.assets.commit.is_empty() || lock.makehuman.commit.is_empty() {
            return Err(LockError {
                line: text.lines().count(),
                problem: "both repositories (archive, makehuman) must be named".into(),
            });
        }
        Ok(lock)
    }

    /// The locked file at `path` in the assets folder.
    pub fn get(&self, path: &str) -> Option<&LockedFile> {
        self.by_path.get(path).map(|&at| &self.files[at])
    }

    /// The asset repository's archive at the pinned commit, on GitHub.
    pub fn archive_url(&self) -> String {
        format!(
            "https://github.com/{}/archive/{}.zip",
            self.assets.name, self.assets.commit
        )
    }

    /// Where GitHub serves the asset repository's LFS images at the pinned commit (a file's
    /// address is this, `/`, the repository's prefix and its path).
    pub fn lfs_base(&self) -> String {
        format!(
            "https://media.githubusercontent.com/media/{}/{}",
            self.assets.name, self.assets.commit
        )
    }

    /// Where GitHub serves MakeHuman's repository's files at the pinned commit (a file's
    /// address is this, `/`, its path in the assets folder).
    pub fn makehuman_base(&self) -> String {
        format!(
            "https://raw.githubusercontent.com/{}/{}/{}",
            self.makehuman.name,
            self.makehuman.commit,
            self.makehuman.prefix.trim_end_matches('/')
        )
    }

    /// Says which release the lock pins, for people: `makehuman-assets 8cf9645 and makehuman
    /// a8bc2d5`.
    pub fn release(&self) -> String {
        let short_name =
            |r: &PinnedRepository| r.name.rsplit('/').next().unwrap_or(&r.name).to_owned();
        format!(
            "{} {} and {} {}",
            short_name(&self.assets),
            self.assets.short(),
            short_name(&self.makehuman),
            self.makehuman.short()
        )
    }
}

/// A Git LFS pointer: the object's SHA-256 and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LfsPointer {
    /// The object's SHA-256, lowercase hex.
    pub oid: String,
    /// The object's size in bytes.
    pub size: u64,
}

/// Pointer files are about 130 bytes; the specification caps them at 1024.
pub const MAX_LFS_POINTER: usize = 1024;

impl LfsPointer {
    /// Reads a pointer file (`version https://git-lfs.github.com/spec/v1`, `oid sha256:HEX`,
    /// `size N`); `None` when `bytes` is not one.
    pub fn parse(bytes: &[u8]) -> Option<LfsPointer> {
        if bytes.len() > MAX_LFS_POINTER {
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        if !lines
            .next()?
            .starts_with("version https://git-lfs.github.com/spec/")
        {
            return None;
        }
        let (mut oid, mut size) = (None, None);
        for line in lines {
            if let Some(hex) = line.strip_prefix("oid sha256:") {
                oid = is_hex(hex, 64).then(|| hex.to_ascii_lowercase());
            } else if let Some(n) = line.strip_prefix("size ") {
                size = n.parse::<u64>().ok();
            }
        }
        Some(LfsPointer {
            oid: oid?,
            size: size?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_lock_parses_and_names_both_repositories() {
        let lock = AssetsLock::pinned().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (lock.assets.short(), lock.makehuman.short()),
            ("8cf9645", "a8bc2d5")
        );
        assert!(lock.files.len() > 500, "{}", lock.files.len());
        let lfs = lock
            .files
            .iter()
            .filter(|f| f.origin == LockOrigin::Lfs)
            .count();
        assert!(lfs > 100, "{lfs} LFS images");
        assert_eq!(
            lock.get("rigs/default.mhskel").map(|f| f.origin),
            Some(LockOrigin::MakeHuman)
        );
        assert_eq!(
            lock.archive_url(),
            "https://github.com/makehumancommunity/makehuman-assets/archive/8cf9645b975a98eea056b140df11a1d278da0d10.zip"
        );
    }

    #[test]
    fn bad_lock_lines_are_located() {
        let head = "repository archive a/b 8cf9645b975a98eea056b140df11a1d278da0d10 base/\nrepository makehuman c/d a8bc2d54ff0ac92e78ff71431b1023eda42bf482 makehuman/data/\n";
        let sha = "0".repeat(64);
        for (line, problem) in [
            (
                format!("lfs 12 {sha} ../x.png"),
                "not a plain relative path",
            ),
            (format!("zip 12 {sha} x.png"), "unknown origin"),
            ("lfs 12 abc x.png".to_owned(), "not a SHA-256"),
            (format!("lfs -1 {sha} x.png"), "not a size"),
            ("lfs 12".to_owned(), "expected"),
        ] {
            let error = AssetsLock::parse(&format!("{head}{line}\n"));
            assert!(
                matches!(&error, Err(e) if e.line == 3 && e.problem.contains(problem)),
                "{line}: {error:?}"
            );
        }
        let twice = format!("{head}lfs 1 {sha} a.png\narchive 1 {sha} a.png\n");
        assert!(matches!(AssetsLock::parse(&twice), Err(e) if e.line == 4));
        assert!(AssetsLock::parse("# nothing\n").is_err());
    }

    #[test]
    fn lfs_pointers_are_read_and_anything_else_is_not_one() {
        let oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";
        let pointer =
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 12345\n");
        assert_eq!(
            LfsPointer::parse(pointer.as_bytes()),
            Some(LfsPointer {
                oid: oid.to_owned(),
                size: 12345
            })
        );
        for bad in [
            "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n".to_owned(),
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\n"),
            format!("version x\noid sha256:{oid}\nsize 1\n"),
            format!("{pointer}{}", " ".repeat(MAX_LFS_POINTER)),
        ] {
            assert_eq!(LfsPointer::parse(bad.as_bytes()), None, "{bad}");
        }
    }
}
