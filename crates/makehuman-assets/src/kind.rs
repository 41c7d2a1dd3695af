//! The kinds of MakeHuman asset a character wears, decided once for every crate: the word a
//! `.mhm` line or preset key spells each with, its folder in an assets folder and its files'
//! extension.

/// A kind of MakeHuman asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKind {
    /// Clothes and shoes (`clothes/`).
    Clothes,
    /// Eyebrows (`eyebrows/`).
    Eyebrows,
    /// Eyelashes (`eyelashes/`).
    Eyelashes,
    /// Hair (`hair/`).
    Hair,
    /// Proxy eyes (`eyes/`).
    Eyes,
    /// Teeth (`teeth/`).
    Teeth,
    /// A tongue (`tongue/`).
    Tongue,
    /// A body topology (`proxymeshes/`).
    Proxy,
}

impl AssetKind {
    /// Every kind, in the order a character wears them.
    pub const ALL: [AssetKind; 8] = [
        AssetKind::Eyes,
        AssetKind::Teeth,
        AssetKind::Tongue,
        AssetKind::Eyebrows,
        AssetKind::Eyelashes,
        AssetKind::Hair,
        AssetKind::Clothes,
        AssetKind::Proxy,
    ];

    /// The `.mhm` keyword, preset key and extras word (`clothes`, `proxy`).
    pub const fn name(self) -> &'static str {
        match self {
            AssetKind::Clothes => "clothes",
            AssetKind::Eyebrows => "eyebrows",
            AssetKind::Eyelashes => "eyelashes",
            AssetKind::Hair => "hair",
            AssetKind::Eyes => "eyes",
            AssetKind::Teeth => "teeth",
            AssetKind::Tongue => "tongue",
            AssetKind::Proxy => "proxy",
        }
    }

    /// The kind a `.mhm` keyword, preset key or extras word names.
    pub fn from_name(name: &str) -> Option<AssetKind> {
        AssetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its folder in an assets folder (`proxymeshes` for body topologies).
    pub const fn folder(self) -> &'static str {
        match self {
            AssetKind::Proxy => "proxymeshes",
            other => other.name(),
        }
    }

    /// Its description files' extension (`mhclo`, `proxy`).
    pub const fn extension(self) -> &'static str {
        match self {
            AssetKind::Proxy => "proxy",
            _ => "mhclo",
        }
    }
}

impl std::fmt::Display for AssetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_s_name_round_trips_and_names_and_folders_are_distinct() {
        let mut names = std::collections::BTreeSet::new();
        let mut folders = std::collections::BTreeSet::new();
        for kind in AssetKind::ALL {
            assert_eq!(AssetKind::from_name(kind.name()), Some(kind));
            assert_eq!(kind.to_string(), kind.name());
            assert!(names.insert(kind.name()), "{kind:?}'s name twice");
            assert!(folders.insert(kind.folder()), "{kind:?}'s folder twice");
        }
        assert_eq!(names.len(), 8, "ALL lists every kind once");
        assert_eq!(AssetKind::from_name("skin"), None);
        assert_eq!(
            AssetKind::from_name("Clothes"),
            None,
            "keywords are lower case"
        );
    }
}
