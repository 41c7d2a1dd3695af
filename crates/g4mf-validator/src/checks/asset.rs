//! `asset` (dimension, extensions, version) and item names (core.md).

use super::*;

impl<'a> Checker<'a> {
    pub(crate) fn asset(&mut self) {
        let Some(asset) = self.doc.get("asset").and_then(Value::as_object) else {
            self.f.at(
                Code::AssetMissing,
                "",
                "a G4MF file must have an `asset` object",
            );
            return;
        };
        match asset.get("dimension") {
            None => self.f.at(
                Code::AssetDimensionMissing,
                "/asset",
                "`asset.dimension` is required",
            ),
            Some(d) if !d.is_u64() => self.f.at(
                Code::AssetDimensionNotInteger,
                "/asset/dimension",
                format!("`dimension` must be a non-negative integer, found {d}"),
            ),
            Some(_) => {}
        }
        let used: HashSet<&str> = asset
            .get("extensionsUsed")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(required) = asset.get("extensionsRequired").and_then(Value::as_array) {
            for (i, e) in required.iter().enumerate() {
                if let Some(name) = e.as_str().filter(|n| !used.contains(n)) {
                    self.f.at(
                        Code::AssetExtensionRequiredNotUsed,
                        format!("/asset/extensionsRequired/{i}"),
                        format!("`{name}` is required but not listed in `extensionsUsed`"),
                    );
                }
            }
        }
        if let Some(version) = asset.get("version").and_then(Value::as_str) {
            let parts: Vec<&str> = version.split('.').collect();
            if !(2..=3).contains(&parts.len())
                || parts
                    .iter()
                    .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
            {
                self.f.at(
                    Code::AssetVersionFormat,
                    "/asset/version",
                    format!(
                        "`version` must be MAJOR.MINOR or MAJOR.MINOR.PATCH, found `{version}`"
                    ),
                );
            }
        }
        // Extensions used anywhere must be declared.
        let mut undeclared = Vec::new();
        find_extensions(self.doc, &mut |pointer: String, name: &str| {
            if !used.contains(name) {
                undeclared.push((pointer, name.to_owned()));
            }
        });
        for (pointer, name) in undeclared {
            self.f.at(
                Code::AssetExtensionNotDeclared,
                pointer,
                format!("extension `{name}` is used but not listed in `asset.extensionsUsed`"),
            );
        }
    }

    pub(crate) fn names(&mut self) {
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut items = Vec::new();
        collect_names(self.doc, &mut items);
        for (pointer, name) in items {
            let Some(name) = name.as_str() else {
                self.f
                    .at(Code::NameNotString, pointer, "`name` must be a string");
                continue;
            };
            if let Some(c) = name.chars().find(|c| FORBIDDEN.contains(c)) {
                self.f.at(
                    Code::NameForbiddenCharacter,
                    pointer.clone(),
                    format!("name `{name}` contains the forbidden character `{c}`"),
                );
            }
            if name.chars().any(char::is_control) {
                self.f.at(
                    Code::NameControlCharacter,
                    pointer.clone(),
                    format!("name {name:?} contains a control character"),
                );
            }
            if !name.is_empty() {
                if let Some(first) = seen.get(name) {
                    self.f.at(Code::NameDuplicate, pointer, format!("name `{name}` is already used at {first}; names must be unique across the file"));
                } else {
                    seen.insert(name.to_owned(), pointer);
                }
            }
        }
    }
}
