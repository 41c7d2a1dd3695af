//! Near names for "did you mean": the known names closest to an unknown one (case-insensitive
//! edit distance), for unknown assets, targets and rigs.

/// Most near names offered.
const MAX_OFFERED: usize = 3;

/// The names among `known` within a few edits of `wanted` (a third of its length, at least
/// two), closest first, at most three, each quoted with backticks.
pub fn near_names<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    // Long names cost the distance's square: compare only the first 64 characters.
    let wanted: Vec<char> = wanted.chars().take(64).collect();
    let limit = (wanted.len() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|name| {
            let other: Vec<char> = name.to_lowercase().chars().take(64).collect();
            let d = distance(&wanted, &other);
            (d <= limit).then_some((d, name))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_OFFERED)
        .map(|(_, name)| format!("`{}`", crate::text::excerpt(name, 60)))
        .collect()
}

/// Levenshtein distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_offered_closest_first() {
        let known = ["short02", "long01", "bob02", "short04"];
        assert_eq!(
            near_names("shrt02", known.into_iter()),
            ["`short02`", "`short04`"]
        );
        assert!(near_names("tshirt", known.into_iter()).is_empty());
    }
}
