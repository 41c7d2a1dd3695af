//! `cargo xtask long-functions`: the product functions longer than a screen, and the check
//! that ARCHITECTURE.md lists each of them with its reason.
//!
//! Product code is every published crate's `src/` (not `test-support`, `mpfb-bench`,
//! `conformance`, tests, benches, `#[cfg(test)]` modules or the xtask). A function's length
//! runs from its `fn` line to its closing brace (attributes and doc comments not counted).

use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Longer than this many lines needs a reason in ARCHITECTURE.md.
pub const SCREEN: usize = 60;

/// Crates that are not product code: never published, used only by tests and benchmarks.
pub const NOT_PRODUCT: [&str; 3] = ["test-support", "mpfb-bench", "conformance"];

/// The heading of ARCHITECTURE.md's list.
const HEADING: &str = "## Functions longer than a screen";

/// One function: where it is, what it is called and how many lines it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFunction {
    /// The file, relative to the workspace root, with `/` separators.
    pub file: String,
    /// `name` for a free function, `Type::name` for a method.
    pub name: String,
    /// Lines from `fn` to the closing brace.
    pub lines: usize,
}

/// Prints every product function over [`SCREEN`] lines, longest first, and fails when
/// ARCHITECTURE.md's list differs.
pub fn run(_args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let found = long_functions(&root)?;
    for function in &found {
        println!("{:4} {} {}", function.lines, function.file, function.name);
    }
    let missing = unlisted(&root, &found)?;
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing.join("\n"))
    }
}

/// The workspace root (the xtask's parent folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every product source file (each published crate's `src/`), sorted, with its text and its
/// path relative to `root` with `/` separators.
pub fn product_files(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    let crates = root.join("crates");
    for entry in std::fs::read_dir(&crates).map_err(|e| format!("{}: {e}", crates.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !NOT_PRODUCT.contains(&name.as_str()) {
            rust_files(&entry.path().join("src"), &mut files)?;
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let file = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            Ok((file, text))
        })
        .collect()
}

/// Every product function over [`SCREEN`] lines, longest first.
pub fn long_functions(root: &Path) -> Result<Vec<LongFunction>, String> {
    let mut found = Vec::new();
    for (file, text) in product_files(root)? {
        let tree = syn::parse_file(&text).map_err(|e| format!("{file}: {e}"))?;
        let mut visitor = Lengths {
            file,
            owner: Vec::new(),
            found: &mut found,
        };
        visitor.visit_file(&tree);
    }
    found.sort_by(|a, b| {
        b.lines
            .cmp(&a.lines)
            .then_with(|| (&a.file, &a.name).cmp(&(&b.file, &b.name)))
    });
    Ok(found)
}

/// Lines of ARCHITECTURE.md's list that disagree with `found`: functions missing from it (or
/// listed without a reason) and entries naming no function over a screen.
pub fn unlisted(root: &Path, found: &[LongFunction]) -> Result<Vec<String>, String> {
    let path = root.join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let listed =
        listed(&text).ok_or_else(|| format!("ARCHITECTURE.md has no `{HEADING}` section"))?;
    let mut problems = Vec::new();
    for function in found {
        match listed
            .iter()
            .find(|(file, name, _)| *file == function.file && *name == function.name)
        {
            None => problems.push(format!(
                "{} `{}` ({} lines) is not listed under `{HEADING}` in ARCHITECTURE.md",
                function.file, function.name, function.lines
            )),
            Some((_, _, reason)) if reason.trim().is_empty() => {
                problems.push(format!(
                    "{} `{}` is listed without a reason",
                    function.file, function.name
                ));
            }
            Some(_) => {}
        }
    }
    for (file, name, _) in &listed {
        if !found.iter().any(|f| f.file == *file && f.name == *name) {
            problems.push(format!(
                "ARCHITECTURE.md lists {file} `{name}`, which is not a product function over {SCREEN} lines"
            ));
        }
    }
    Ok(problems)
}

/// The entries of the list: `- path `name` (N lines): reason`, as (file, name, reason).
fn listed(text: &str) -> Option<Vec<(String, String, String)>> {
    let start = text.find(HEADING)?;
    let section = &text[start + HEADING.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut entries = Vec::new();
    let mut current: Option<(String, String, String)> = None;
    for line in section.lines() {
        if let Some(rest) = line.strip_prefix("- `") {
            entries.extend(current.take());
            // - `crates/a/src/b.rs` `name` (N lines): reason
            let Some((file, rest)) = rest.split_once('`') else {
                continue;
            };
            let rest = rest.trim_start();
            let Some(rest) = rest.strip_prefix('`') else {
                continue;
            };
            let Some((name, rest)) = rest.split_once('`') else {
                continue;
            };
            let reason = rest.split_once(':').map_or("", |(_, reason)| reason);
            current = Some((file.to_owned(), name.to_owned(), reason.trim().to_owned()));
        } else if let Some((_, _, reason)) = current.as_mut() {
            if line.starts_with("  ") {
                reason.push(' ');
                reason.push_str(line.trim());
            } else {
                entries.extend(current.take());
            }
        }
    }
    entries.extend(current);
    Some(entries)
}

/// Every `.rs` file under `folder`.
pub fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Collects functions over a screen, skipping `#[cfg(test)]` items.
struct Lengths<'a> {
    file: String,
    owner: Vec<String>,
    found: &'a mut Vec<LongFunction>,
}

impl Lengths<'_> {
    fn record(&mut self, name: &syn::Ident, start: proc_macro2::Span, end: proc_macro2::Span) {
        let lines = end.end().line + 1 - start.start().line;
        if lines > SCREEN {
            let name = match self.owner.last() {
                Some(owner) => format!("{owner}::{name}"),
                None => name.to_string(),
            };
            self.found.push(LongFunction {
                file: self.file.clone(),
                name,
                lines,
            });
        }
    }
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("test")
            || (attr.path().is_ident("cfg")
                && attr
                    .parse_args::<proc_macro2::TokenStream>()
                    .is_ok_and(|tokens| tokens.to_string() == "test"))
    })
}

fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(String::new, |segment| segment.ident.to_string()),
        _ => quote_free(ty),
    }
}

/// A type written without generics, for names like `impl Trait for &T`.
fn quote_free(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(reference) => type_name(&reference.elem),
        _ => "_".to_owned(),
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        use syn::spanned::Spanned;
        self.record(&item.sig.ident, item.sig.span(), item.block.span());
        self.owner.push(item.sig.ident.to_string());
        syn::visit::visit_item_fn(self, item);
        self.owner.pop();
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if is_test_only(&item.attrs) {
            return;
        }
        self.owner.push(type_name(&item.self_ty));
        syn::visit::visit_item_impl(self, item);
        self.owner.pop();
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        use syn::spanned::Spanned;
        self.record(&item.sig.ident, item.sig.span(), item.block.span());
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.owner.push(item.ident.to_string());
        syn::visit::visit_item_trait(self, item);
        self.owner.pop();
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        use syn::spanned::Spanned;
        if let Some(block) = &item.default {
            self.record(&item.sig.ident, item.sig.span(), block.span());
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_from_fn_to_the_closing_brace_and_skip_tests() {
        let source = format!(
            "fn short() {{}}\nfn long() {{\n{}}}\nimpl Thing {{ fn method() {{\n{}}} }}\n#[cfg(test)]\nmod tests {{ fn long_test() {{\n{}}} }}\n",
            "let a = 1;\n".repeat(SCREEN),
            "let b = 2;\n".repeat(SCREEN),
            "let c = 3;\n".repeat(SCREEN),
        );
        let tree = syn::parse_file(&source).expect("parses");
        let mut found = Vec::new();
        Lengths {
            file: "x.rs".to_owned(),
            owner: Vec::new(),
            found: &mut found,
        }
        .visit_file(&tree);
        let names: Vec<_> = found.iter().map(|f| (f.name.as_str(), f.lines)).collect();
        assert_eq!(names, [("long", SCREEN + 2), ("Thing::method", SCREEN + 2)]);
    }

    #[test]
    fn the_list_reads_entries_and_their_reasons() {
        let text = format!(
            "# A\n{HEADING}\n\nIntro.\n\n- `crates/a/src/b.rs` `run` (70 lines): one table\n  of cases.\n- `crates/a/src/c.rs` `Type::go` (61 lines):\n\n## Next\n- `x` `y`: z\n"
        );
        let entries = listed(&text).expect("has the section");
        assert_eq!(
            entries,
            [
                (
                    "crates/a/src/b.rs".to_owned(),
                    "run".to_owned(),
                    "one table of cases.".to_owned()
                ),
                (
                    "crates/a/src/c.rs".to_owned(),
                    "Type::go".to_owned(),
                    String::new()
                ),
            ]
        );
    }

    /// The check itself: every product function over a screen is in ARCHITECTURE.md's list
    /// with a reason, and the list names nothing else.
    #[test]
    fn every_long_product_function_is_listed_with_its_reason() {
        let root = workspace_root();
        let found = long_functions(&root).expect("the sources parse");
        let problems = unlisted(&root, &found).expect("ARCHITECTURE.md reads");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
