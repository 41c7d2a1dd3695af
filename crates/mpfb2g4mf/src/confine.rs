//! Paths an asset file names (a `.mhclo`'s `obj_file`, `material` and weights, a material's
//! textures) kept inside the folder they belong to: the assets folder when the file is in it,
//! else the file's own folder. A description is data, not a licence to read the disk.

use crate::error::ConvertError;
use std::path::{Component, Path, PathBuf};

/// The folder the paths `file` names must stay in: `assets` when `file` is inside it, else
/// `file`'s own folder.
pub fn root_for(file: &Path, assets: Option<&Path>) -> PathBuf {
    let own = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    match assets {
        Some(folder) if inside(&real(file), &real(folder)) => folder.to_path_buf(),
        _ => own,
    }
}

/// `named` (the value of `key` in `file`) resolved against `file`'s folder, refused when it
/// leaves `root`: an absolute path, `..` past the root, or a symbolic link out of it.
pub fn resolve(file: &Path, key: &str, named: &str, root: &Path) -> Result<PathBuf, ConvertError> {
    let folder = file.parent().unwrap_or(Path::new("."));
    let joined = folder.join(named);
    let refused = || ConvertError::OutsideFolder {
        file: file.to_path_buf(),
        key: key.to_owned(),
        named: location::text::excerpt(named, 80),
        folder: root.to_path_buf(),
    };
    if Path::new(named).is_absolute() || !inside(&lexical(&absolute(&joined)), &real(root)) {
        return Err(refused());
    }
    // Links are followed as the kernel will: the real file must be inside too.
    if let Ok(target) = joined.canonicalize() {
        if !inside(&target, &real(root)) {
            return Err(refused());
        }
    }
    Ok(joined)
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    }
}

/// `path` absolute, through its real folders when it exists.
fn real(path: &Path) -> PathBuf {
    path.canonicalize()
        .unwrap_or_else(|_| lexical(&absolute(path)))
}

/// `path` with `.` dropped and each `..` taking the component before it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn inside(path: &Path, root: &Path) -> bool {
    // Compared through the root's real path: a lexical path under a linked root is inside.
    path.starts_with(root) || lexical(path).starts_with(lexical(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_in_their_root() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("assets");
        let skin = root.join("skins/young");
        std::fs::create_dir_all(&skin).unwrap_or_else(|e| panic!("{e}"));
        let file = skin.join("young.mhmat");
        let ok = |named: &str| resolve(&file, "diffuseTexture", named, &root).is_ok();
        assert!(ok("young.png"));
        assert!(ok("../textures/young.png"));
        assert!(!ok("../../../secret.png"));
        assert!(!ok("/etc/passwd"));
        assert_eq!(root_for(&file, Some(&root)), root);
        assert_eq!(root_for(&file, None), skin);
    }
}
