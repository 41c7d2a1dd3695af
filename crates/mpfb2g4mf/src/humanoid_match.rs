//! Humanoid names for a rig without a table: bones matched to G4MF's bipedal humanoid profile
//! by their names (MPFB's naming families: default, game engine, Mixamo, CMU and Rigify, with
//! or without a namespace (`mixamorig:`) or a Rigify prefix (`DEF-`), with any side marker) and
//! by the skeleton's structure: limbs walked up from the hands and feet, the hips and chest
//! where the limbs meet, spine, neck and head along the centre chain, sides by the name's
//! marker or else by the sign of the rest position. The result is a table in the shipped
//! tables' format (MPFB bone -> G4MF name); `stages::humanoid` checks it against the profile.

use character::Skeleton;
use std::collections::{BTreeMap, HashSet};

/// How many hand or foot bones per side [`Rig::limb`] tries, topmost first.
const MAX_END_CANDIDATES: usize = 8;

/// How far from the mid-plane (metres) a bone's head may be and still count as centred.
const CENTRE: f64 = 0.005;

/// Stems (a name's letters, lower case, without side marker, digits or separators) of each
/// limb part, as MPFB's rig families spell them.
const SHOULDER: &[&str] = &["shoulder", "clavicle", "collar", "collarbone"];
const UPPER_ARM: &[&str] = &["upperarm", "arm", "uparm", "humerus"];
const LOWER_ARM: &[&str] = &["lowerarm", "forearm", "loarm"];
const HAND: &[&str] = &["hand", "wrist"];
const UPPER_LEG: &[&str] = &["upperleg", "upleg", "thigh", "femur"];
const LOWER_LEG: &[&str] = &["lowerleg", "leg", "calf", "shin", "loleg"];
const FOOT: &[&str] = &["foot", "ankle"];
const TOES: &[&str] = &["toe", "toes", "toebase", "ball"];
const EYE: &[&str] = &["eye", "eyeball"];
const FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Pinky"];

/// The character's side a bone is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

impl Side {
    fn word(self) -> &'static str {
        match self {
            Side::Left => "Left",
            Side::Right => "Right",
        }
    }
}

/// A bone name taken apart: letters (lower case, joined), numbers, and side marker.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NameParts {
    stem: String,
    numbers: Vec<u32>,
    side: Option<Side>,
}

/// Splits at separators, letter/digit changes and camel-case humps (`LThumb` is `L`, `Thumb`).
fn words(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(at, c)) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                out.push(&name[s..at]);
            }
            continue;
        }
        if let Some(s) = start {
            let previous = chars[k - 1].1;
            let next_lower = chars
                .get(k + 1)
                .is_some_and(|(_, n)| n.is_ascii_lowercase());
            let boundary = previous.is_ascii_digit() != c.is_ascii_digit()
                || (previous.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (previous.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower);
            if boundary {
                out.push(&name[s..at]);
                start = Some(at);
            }
        } else {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push(&name[s..]);
    }
    out
}

fn parse_name(name: &str) -> NameParts {
    // `mixamorig:Hips`, `Armature|Hips`: the namespace says nothing about the bone.
    let local = name.rsplit([':', '|']).next().unwrap_or(name);
    let lower = local.to_ascii_lowercase();
    let local = ["def-", "org-", "mch-", "def_", "cc_base_"]
        .iter()
        .find(|p| lower.starts_with(*p))
        .map_or(local, |p| &local[p.len()..]);
    let mut parts = NameParts {
        stem: String::new(),
        numbers: Vec::new(),
        side: None,
    };
    for word in words(local) {
        if word.bytes().all(|b| b.is_ascii_digit()) {
            parts.numbers.push(word.parse().unwrap_or(u32::MAX));
            continue;
        }
        let word = word.to_ascii_lowercase();
        match word.as_str() {
            "l" | "left" if parts.side.is_none() => parts.side = Some(Side::Left),
            "r" | "right" if parts.side.is_none() => parts.side = Some(Side::Right),
            _ => parts.stem.push_str(&word),
        }
    }
    parts
}

/// Which finger a bone belongs to (index into [`FINGERS`]), and whether it is a metacarpal:
/// by keyword (`thumb`, `index`, `middle`, `ring`, `pinky`/`little`), or by the numbers of
/// MPFB's default family (`finger2-1` is the index's first phalanx, `metacarpal1` the index's
/// metacarpal) and Rigify's (`palm.01` the index's metacarpal).
fn finger_of(parts: &NameParts) -> Option<(usize, bool)> {
    let stem = parts.stem.as_str();
    let metacarpal = stem.contains("metacarpal") || stem == "palm";
    let keyword = [
        (&["thumb"][..], 0),
        (&["index"][..], 1),
        (&["middle"][..], 2),
        (&["ring"][..], 3),
        (&["pinky", "little"][..], 4),
    ]
    .iter()
    .find(|(words, _)| words.iter().any(|w| stem.contains(w)))
    .map(|(_, f)| *f);
    if let Some(f) = keyword {
        return Some((f, metacarpal));
    }
    let first = *parts.numbers.first()? as usize;
    match stem {
        "finger" if (1..=5).contains(&first) => Some((first - 1, false)),
        "metacarpal" | "palm" if (1..=4).contains(&first) => Some((first, true)),
        _ => None,
    }
}

/// What the matcher found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// MPFB bone -> G4MF name, in the shipped tables' format.
    pub table: BTreeMap<String, String>,
    /// The profile's bones no bone of the rig was placed as, in the profile's order.
    pub not_placed: Vec<&'static str>,
}

/// The skeleton with what the matcher asks of it.
struct Rig<'a> {
    skeleton: &'a Skeleton,
    parts: Vec<NameParts>,
    depth: Vec<usize>,
    children: Vec<Vec<usize>>,
    /// Bones in each bone's subtree (itself included).
    subtree_size: Vec<usize>,
}

impl<'a> Rig<'a> {
    fn new(skeleton: &'a Skeleton) -> Self {
        let bones = &skeleton.bones;
        let mut children = vec![Vec::new(); bones.len()];
        for (i, b) in bones.iter().enumerate() {
            if let Some(p) = b.parent.filter(|&p| p < bones.len()) {
                children[p].push(i);
            }
        }
        // Depths and subtree sizes in linear time (a hostile rig may be one long chain):
        // parents first from the roots, then sizes summed deepest first.
        let mut depth = vec![0; bones.len()];
        let mut order: Vec<usize> = (0..bones.len())
            .filter(|&i| bones[i].parent.is_none_or(|p| p >= bones.len()))
            .collect();
        let mut next = 0;
        while next < order.len() {
            let b = order[next];
            next += 1;
            for &c in &children[b] {
                depth[c] = depth[b] + 1;
                order.push(c);
            }
        }
        let mut subtree_size = vec![1; bones.len()];
        for &b in order.iter().rev() {
            if let Some(p) = bones[b].parent.filter(|&p| p < bones.len()) {
                subtree_size[p] += subtree_size[b];
            }
        }
        Rig {
            skeleton,
            parts: bones.iter().map(|b| parse_name(&b.name)).collect(),
            depth,
            children,
            subtree_size,
        }
    }

    /// Parent first, up to the root (bounded: a cycle cannot loop).
    fn ancestors(&self, bone: usize) -> Vec<usize> {
        let bones = &self.skeleton.bones;
        let mut out = Vec::new();
        let mut at = bones[bone].parent;
        while let Some(p) = at.filter(|&p| p < bones.len() && out.len() < bones.len()) {
            out.push(p);
            at = bones[p].parent;
        }
        out
    }

    fn parent(&self, bone: usize) -> Option<usize> {
        self.skeleton.bones[bone]
            .parent
            .filter(|&p| p < self.skeleton.bones.len())
    }

    /// `bone`'s ancestor at `depth` (itself at its own depth); steps are bounded by depths.
    fn up_to_depth(&self, mut bone: usize, depth: usize) -> Option<usize> {
        while self.depth[bone] > depth {
            bone = self.parent(bone)?;
        }
        (self.depth[bone] == depth).then_some(bone)
    }

    fn is_ancestor(&self, ancestor: usize, bone: usize) -> bool {
        self.depth[ancestor] < self.depth[bone]
            && self.up_to_depth(bone, self.depth[ancestor]) == Some(ancestor)
    }

    /// The bones below `top` down to `bottom` (inclusive), top first; `None` when `top` is not
    /// above `bottom`.
    fn path(&self, top: usize, bottom: usize) -> Option<Vec<usize>> {
        let up = self.ancestors(bottom);
        let at = up.iter().position(|&a| a == top)?;
        let mut path: Vec<usize> = up[..at].to_vec();
        path.reverse();
        path.push(bottom);
        Some(path)
    }

    fn lowest_common_ancestor(&self, bones: &[usize]) -> Option<usize> {
        let (&first, rest) = bones.split_first()?;
        rest.iter().try_fold(first, |a, &b| {
            // Both to the same depth, then up together until they meet.
            let depth = self.depth[a].min(self.depth[b]);
            let (mut a, mut b) = (self.up_to_depth(a, depth)?, self.up_to_depth(b, depth)?);
            while a != b {
                a = self.parent(a)?;
                b = self.parent(b)?;
            }
            Some(a)
        })
    }

    /// The side of the body the bone is on: its rest position's when off the mid-plane (a
    /// marker that says otherwise is a naming slip; `Left` names the character's left), else
    /// its name's marker.
    fn side(&self, bone: usize) -> Option<Side> {
        let x = self.skeleton.bones[bone].head.x;
        // G4MF faces +Z with Y up: the character's left is +X.
        (x.abs() > CENTRE)
            .then_some(if x > 0.0 { Side::Left } else { Side::Right })
            .or(self.parts[bone].side)
    }

    fn is_centred(&self, bone: usize) -> bool {
        self.parts[bone].side.is_none() && self.skeleton.bones[bone].head.x.abs() <= CENTRE
    }

    fn stem_in(&self, bone: usize, stems: &[&str]) -> bool {
        stems.contains(&self.parts[bone].stem.as_str())
    }

    /// The candidate nearest the root (ties: the first in bone order).
    fn topmost(&self, candidates: impl Iterator<Item = usize>) -> Option<usize> {
        candidates.min_by_key(|&i| (self.depth[i], i))
    }

    fn subtree(&self, bone: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![bone];
        while let Some(b) = stack.pop() {
            if out.len() > self.skeleton.bones.len() {
                break;
            }
            out.push(b);
            stack.extend(self.children[b].iter().copied());
        }
        out
    }

    /// One limb: the end bone (hand, foot) of `side` by name, then its upper and lower part
    /// among its ancestors by name, else its parent and grandparent on the same side. Of
    /// several end bones (Rigify's `ORG-hand.L` beside `hand.L`), the topmost whose limb is
    /// found by name wins, else the topmost whose limb is found at all (of the eight topmost).
    fn limb(&self, side: Side, end: &[&str], lower: &[&str], upper: &[&str]) -> Option<Limb> {
        let mut ends: Vec<usize> = (0..self.parts.len())
            .filter(|&i| self.stem_in(i, end) && self.side(i) == Some(side))
            .collect();
        ends.sort_by_key(|&i| (self.depth[i], i));
        // A few candidates are plenty (Rigify has three hands a side at most); a hostile rig
        // with thousands would make each limb walk cost a rig's length.
        let limbs: Vec<(Limb, bool)> = ends
            .into_iter()
            .take(MAX_END_CANDIDATES)
            .filter_map(|e| self.limb_from(side, e, lower, upper))
            .collect();
        limbs
            .iter()
            .find(|(_, named)| *named)
            .or(limbs.first())
            .map(|(limb, _)| *limb)
    }

    /// The limb above `end`, and whether both its parts were found by name.
    fn limb_from(
        &self,
        side: Side,
        end: usize,
        lower: &[&str],
        upper: &[&str],
    ) -> Option<(Limb, bool)> {
        let up = self.ancestors(end);
        let sided = |i: &usize| self.side(*i) == Some(side);
        // `up` is nearest first: position k is above position j when k > j.
        let named_upper = up.iter().rposition(|&i| self.stem_in(i, upper));
        let named_lower = up
            .iter()
            .enumerate()
            .filter(|&(k, &i)| self.stem_in(i, lower) && named_upper.is_none_or(|u| k < u))
            .map(|(k, _)| k)
            .next_back();
        let named_upper = named_upper.map(|k| up[k]);
        let named_lower = named_lower.map(|k| up[k]);
        let lower = named_lower.or_else(|| up.first().copied().filter(sided))?;
        let upper = named_upper
            .filter(|&u| self.is_ancestor(u, lower))
            .or_else(|| self.parent(lower).filter(sided))?;
        let named = named_lower.is_some() && named_upper == Some(upper);
        Some((Limb { upper, lower, end }, named))
    }
}

/// A limb's three defined bones.
#[derive(Debug, Clone, Copy)]
struct Limb {
    upper: usize,
    lower: usize,
    end: usize,
}

/// Names collected as they are found; a bone keeps the first name it gets.
#[derive(Default)]
struct Found {
    by_name: BTreeMap<String, usize>,
    taken: HashSet<usize>,
}

impl Found {
    fn place(&mut self, name: &str, bone: usize) {
        if !self.taken.contains(&bone) && !self.by_name.contains_key(name) {
            self.by_name.insert(name.to_owned(), bone);
            self.taken.insert(bone);
        }
    }
}

/// Names `chain` (top first) `base`, `base1`, `base2`, ... (the profile's numbered variants).
fn numbered(found: &mut Found, base: &str, chain: &[usize]) {
    for (k, &bone) in chain.iter().enumerate() {
        if k == 0 {
            found.place(base, bone);
        } else {
            found.place(&format!("{base}{k}"), bone);
        }
    }
}

/// Matches the skeleton's bones to the humanoid profile.
pub fn match_skeleton(skeleton: &Skeleton) -> Matched {
    let rig = Rig::new(skeleton);
    let mut found = Found::default();
    let sides = [Side::Left, Side::Right];
    let arms = sides.map(|s| rig.limb(s, HAND, LOWER_ARM, UPPER_ARM));
    let legs = sides.map(|s| rig.limb(s, FOOT, LOWER_LEG, UPPER_LEG));

    // The chest is where the arms branch (with one arm, or arms that meet only at the hips,
    // the first centred bone above an arm); the hips hold the legs and the spine (without
    // legs, the topmost centred bone above the chest).
    let first_centred_above =
        |bone: usize| rig.ancestors(bone).into_iter().find(|&a| rig.is_centred(a));
    let legs_meet = match legs {
        [Some(l), Some(r)] => rig.lowest_common_ancestor(&[l.upper, r.upper]),
        _ => None,
    };
    let arms_meet = match arms {
        [Some(l), Some(r)] => rig
            .lowest_common_ancestor(&[l.upper, r.upper])
            .filter(|&c| legs_meet.is_none_or(|h| rig.is_ancestor(h, c))),
        _ => None,
    };
    let chest = arms_meet.or_else(|| {
        arms.iter()
            .flatten()
            .filter_map(|l| first_centred_above(l.upper))
            .max_by_key(|&c| rig.depth[c])
    });
    let hips = match (legs_meet, chest) {
        (Some(h), Some(c)) => rig.lowest_common_ancestor(&[h, c]),
        (Some(h), None) => Some(h),
        (None, Some(c)) => {
            let mut top = c;
            for a in rig.ancestors(c) {
                if rig.is_centred(a) {
                    top = a;
                }
            }
            (top != c).then_some(top)
        }
        (None, None) => None,
    };
    if let Some(hips) = hips {
        found.place("Hips", hips);
    }
    let spine = match (hips, chest) {
        (Some(h), Some(c)) if h != c => rig.path(h, c).unwrap_or_default(),
        _ => Vec::new(),
    };
    // The last two bones below the arms' branch are the chest (MPFB's tables: default
    // spine02/spine01, Rigify spine.003/.004, game engine spine_02/_03, Mixamo Spine1/Spine2).
    match spine.len() {
        0 => {}
        1 | 2 => {
            found.place("Spine", spine[0]);
            if let Some(&c) = spine.get(1) {
                found.place("Chest", c);
            }
        }
        n => {
            numbered(&mut found, "Spine", &spine[..n - 2]);
            numbered(&mut found, "Chest", &spine[n - 2..]);
        }
    }

    for (side, limb) in sides.iter().zip(&arms) {
        let Some(limb) = limb else { continue };
        let s = side.word();
        if let Some(chest) = chest {
            let between = rig.path(chest, limb.upper).unwrap_or_default();
            let between = &between[..between.len().saturating_sub(1)];
            let shoulder = rig
                .topmost(
                    between
                        .iter()
                        .copied()
                        .filter(|&i| rig.stem_in(i, SHOULDER)),
                )
                .or_else(|| between.first().copied());
            if let Some(b) = shoulder {
                found.place(&format!("{s}Shoulder"), b);
            }
        }
        found.place(&format!("{s}UpperArm"), limb.upper);
        found.place(&format!("{s}LowerArm"), limb.lower);
        found.place(&format!("{s}Hand"), limb.end);
        fingers(&rig, &mut found, s, limb.end);
    }
    for (side, limb) in sides.iter().zip(&legs) {
        let Some(limb) = limb else { continue };
        let s = side.word();
        found.place(&format!("{s}UpperLeg"), limb.upper);
        found.place(&format!("{s}LowerLeg"), limb.lower);
        found.place(&format!("{s}Foot"), limb.end);
        // One toe bone under the foot is the toes; five (MPFB default's toe1-1 ...) are not.
        let toes: Vec<usize> = rig.children[limb.end]
            .iter()
            .copied()
            .filter(|&i| rig.stem_in(i, TOES))
            .collect();
        if let [toe] = toes[..] {
            found.place(&format!("{s}Toes"), toe);
        }
    }

    if let Some(chest) = chest {
        head_and_neck(&rig, &mut found, chest, &arms);
    }
    let table = found
        .by_name
        .iter()
        .map(|(name, &bone)| (skeleton.bones[bone].name.clone(), name.clone()))
        .collect();
    let not_placed = g4mf_validator::humanoid::PROFILE
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !found.by_name.contains_key(*n))
        .collect();
    Matched { table, not_placed }
}

/// Neck, head, jaw and eyes: the centre chain up from the chest (at each bone, the centred
/// child not on an arm whose subtree holds the eyes, else the largest), the head where a bone
/// is named `head`, else the bone a child sits on without moving (Rigify's `face` on
/// `spine.006`), else the chain's end.
fn head_and_neck(rig: &Rig<'_>, found: &mut Found, chest: usize, arms: &[Option<Limb>; 2]) {
    let on_arm: HashSet<usize> = arms
        .iter()
        .flatten()
        .flat_map(|l| rig.path(chest, l.upper).unwrap_or_default())
        .collect();
    // Bones with an eye below them: every ancestor of an eye bone.
    let mut above_eye = vec![false; rig.parts.len()];
    for eye in (0..rig.parts.len()).filter(|&i| rig.stem_in(i, EYE)) {
        // Each bone is marked once: a walk stops where an earlier one passed.
        let mut at = Some(eye);
        while let Some(b) = at.filter(|&b| !above_eye[b]) {
            above_eye[b] = true;
            at = rig.parent(b);
        }
    }
    let mut chain = Vec::new();
    let mut at = chest;
    while chain.len() < rig.parts.len() {
        let next = rig.children[at]
            .iter()
            .copied()
            .filter(|&c| rig.is_centred(c) && !on_arm.contains(&c))
            .max_by_key(|&c| (above_eye[c], rig.subtree_size[c], std::cmp::Reverse(c)));
        let Some(next) = next else { break };
        chain.push(next);
        if rig.parts[next].stem == "head" {
            break;
        }
        at = next;
    }
    let named = chain.iter().position(|&b| rig.parts[b].stem == "head");
    let resting = chain.windows(2).position(|w| {
        let bones = &rig.skeleton.bones;
        bones[w[0]].head.distance(bones[w[1]].head) < 1e-6
    });
    let Some(head_at) = named.or(resting).or(chain.len().checked_sub(1)) else {
        return;
    };
    let head = chain[head_at];
    numbered(found, "Neck", &chain[..head_at]);
    found.place("Head", head);
    let below = rig.subtree(head);
    if let Some(jaw) = rig.topmost(
        below
            .iter()
            .copied()
            .filter(|&i| rig.parts[i].stem == "jaw" && rig.is_centred(i)),
    ) {
        found.place("Jaw", jaw);
    }
    for side in [Side::Left, Side::Right] {
        if let Some(eye) = rig.topmost(
            below
                .iter()
                .copied()
                .filter(|&i| rig.stem_in(i, EYE) && rig.side(i) == Some(side)),
        ) {
            found.place(&format!("{}Eye", side.word()), eye);
        }
    }
}

/// The fingers under `hand`: each finger's named bones, top first, must form one chain; a
/// metacarpal is a bone named so, the phalanges follow (the thumb's first phalanx is its
/// metacarpal in the profile, as in every MPFB table).
fn fingers(rig: &Rig<'_>, found: &mut Found, side: &str, hand: usize) {
    let below = rig.subtree(hand);
    for (f, finger) in FINGERS.iter().enumerate() {
        let mut bones: Vec<(usize, bool)> = below
            .iter()
            .copied()
            .filter(|&i| i != hand)
            .filter_map(|i| {
                finger_of(&rig.parts[i])
                    .filter(|(which, _)| *which == f)
                    .map(|(_, m)| (i, m))
            })
            .collect();
        bones.sort_by_key(|&(i, _)| (rig.depth[i], i));
        if bones.windows(2).any(|w| !rig.is_ancestor(w[0].0, w[1].0)) {
            continue;
        }
        let (metacarpal, phalanges) = match bones.split_first() {
            Some((&(m, true), rest)) => (Some(m), rest),
            _ => (None, &bones[..]),
        };
        let names: &[&str] = match (f, metacarpal) {
            (0, None) => &["Metacarpal", "Proximal", "Distal"],
            (0, Some(_)) => &["Proximal", "Distal"],
            _ => &["Proximal", "Intermediate", "Distal"],
        };
        if let Some(m) = metacarpal {
            found.place(&format!("{side}{finger}Metacarpal"), m);
        }
        for (&(bone, _), part) in phalanges.iter().zip(names) {
            found.place(&format!("{side}{finger}{part}"), bone);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_apart_into_stem_numbers_and_side() {
        let p = |n: &str| {
            let parts = parse_name(n);
            (parts.stem, parts.numbers, parts.side)
        };
        assert_eq!(
            p("upper_arm.L"),
            ("upperarm".into(), vec![], Some(Side::Left))
        );
        assert_eq!(
            p("mixamorig:RightHandIndex1"),
            ("handindex".into(), vec![1], Some(Side::Right))
        );
        assert_eq!(p("LThumb"), ("thumb".into(), vec![], Some(Side::Left)));
        assert_eq!(p("thumb_01_l"), ("thumb".into(), vec![1], Some(Side::Left)));
        assert_eq!(
            p("finger2-3.R"),
            ("finger".into(), vec![2, 3], Some(Side::Right))
        );
        assert_eq!(p("DEF-spine.006"), ("spine".into(), vec![6], None));
        assert_eq!(p("LeftUpLeg"), ("upleg".into(), vec![], Some(Side::Left)));
    }

    #[test]
    fn fingers_are_known_by_keyword_and_by_the_default_and_rigify_numbers() {
        let f = |n: &str| finger_of(&parse_name(n));
        assert_eq!(f("finger1-2.L"), Some((0, false)));
        assert_eq!(f("metacarpal4.L"), Some((4, true)));
        assert_eq!(f("palm.01.R"), Some((1, true)));
        assert_eq!(f("f_ring.02.L"), Some((3, false)));
        assert_eq!(f("mixamorig:LeftHandPinky3"), Some((4, false)));
        assert_eq!(f("LeftHandFinger1"), None);
        assert_eq!(f("LeftIndexMetacarpal"), Some((1, true)));
    }

    fn skeleton(bones: &[(&str, Option<usize>, [f64; 3])]) -> Skeleton {
        Skeleton {
            position: glam::DVec3::ZERO,
            bones: bones
                .iter()
                .map(|(name, parent, head)| character::Bone {
                    name: (*name).to_owned(),
                    parent: *parent,
                    head: glam::DVec3::from_array(*head),
                    basis: glam::DMat3::IDENTITY,
                    length: 0.1,
                })
                .collect(),
        }
    }

    /// A rig named in no family we know, sides by position only: the structure places the
    /// hips, spine, chest, shoulders, neck and head; the limbs' parts come by their end names.
    #[test]
    fn structure_places_what_names_do_not() {
        let rig = skeleton(&[
            ("base", None, [0.0, 1.0, 0.0]),
            ("s1", Some(0), [0.0, 1.1, 0.0]),
            ("s2", Some(1), [0.0, 1.2, 0.0]),
            ("s3", Some(2), [0.0, 1.3, 0.0]),
            ("collar_a", Some(3), [0.05, 1.4, 0.0]),
            ("bone_a1", Some(4), [0.15, 1.4, 0.0]),
            ("bone_a2", Some(5), [0.4, 1.2, 0.0]),
            ("hand01", Some(6), [0.6, 1.0, 0.0]),
            ("collar_b", Some(3), [-0.05, 1.4, 0.0]),
            ("bone_b1", Some(8), [-0.15, 1.4, 0.0]),
            ("bone_b2", Some(9), [-0.4, 1.2, 0.0]),
            ("hand02", Some(10), [-0.6, 1.0, 0.0]),
            ("c1", Some(3), [0.0, 1.45, 0.0]),
            ("c2", Some(12), [0.0, 1.55, 0.0]),
            ("leg_a1", Some(0), [0.1, 0.9, 0.0]),
            ("leg_a2", Some(14), [0.1, 0.5, 0.0]),
            ("foot01", Some(15), [0.1, 0.1, 0.0]),
            ("leg_b1", Some(0), [-0.1, 0.9, 0.0]),
            ("leg_b2", Some(17), [-0.1, 0.5, 0.0]),
            ("foot02", Some(18), [-0.1, 0.1, 0.0]),
        ]);
        let matched = match_skeleton(&rig);
        let name = |bone: &str| matched.table.get(bone).map(String::as_str);
        assert_eq!(name("base"), Some("Hips"));
        assert_eq!(name("s1"), Some("Spine"));
        assert_eq!(name("s2"), Some("Chest"));
        assert_eq!(name("s3"), Some("Chest1"));
        assert_eq!(name("collar_a"), Some("LeftShoulder"));
        assert_eq!(name("bone_b1"), Some("RightUpperArm"));
        assert_eq!(name("bone_b2"), Some("RightLowerArm"));
        assert_eq!(name("hand01"), Some("LeftHand"));
        assert_eq!(name("c1"), Some("Neck"));
        assert_eq!(name("c2"), Some("Head"));
        assert_eq!(name("leg_a1"), Some("LeftUpperLeg"));
        assert_eq!(name("foot02"), Some("RightFoot"));
        assert!(matched.not_placed.contains(&"Jaw"));
        assert!(!matched.not_placed.contains(&"Hips"));
    }

    /// A hostile rig: one chain of 200,000 bones, every one named `eye` or `hand`. The matcher
    /// walks it in linear time (quadratic walks would take minutes) and places nothing wrong.
    #[test]
    fn a_long_chain_is_matched_in_linear_time() {
        let bones: Vec<(String, Option<usize>, [f64; 3])> = (0..200_000usize)
            .map(|i| {
                let name = if i % 2 == 0 { "eye.L" } else { "hand.L" };
                (
                    name.to_owned(),
                    i.checked_sub(1),
                    [0.1, i as f64 * 1e-3, 0.0],
                )
            })
            .collect();
        let borrowed: Vec<(&str, Option<usize>, [f64; 3])> =
            bones.iter().map(|(n, p, h)| (n.as_str(), *p, *h)).collect();
        let matched = match_skeleton(&skeleton(&borrowed));
        assert!(!matched.table.values().any(|n| n == "Hips"));
    }

    /// What a review found: markers that contradict positions, a stray hand bone at the
    /// root, and rigs without legs or with one arm.
    #[test]
    fn odd_rigs_are_placed_by_where_their_bones_are() {
        let base: Vec<(&str, Option<usize>, [f64; 3])> = vec![
            ("root", None, [0.0, 1.0, 0.0]),
            ("spine", Some(0), [0.0, 1.1, 0.0]),
            ("chest", Some(1), [0.0, 1.3, 0.0]),
            ("clavicle.R", Some(2), [0.05, 1.4, 0.0]),
            ("upperarm.R", Some(3), [0.15, 1.4, 0.0]),
            ("forearm.R", Some(4), [0.4, 1.2, 0.0]),
            ("hand.R", Some(5), [0.6, 1.0, 0.0]),
            ("clavicle.L", Some(2), [-0.05, 1.4, 0.0]),
            ("upperarm.L", Some(7), [-0.15, 1.4, 0.0]),
            ("forearm.L", Some(8), [-0.4, 1.2, 0.0]),
            ("hand.L", Some(9), [-0.6, 1.0, 0.0]),
            ("neck", Some(2), [0.0, 1.45, 0.0]),
            ("head", Some(11), [0.0, 1.55, 0.0]),
            ("thigh.R", Some(0), [0.1, 0.9, 0.0]),
            ("shin.R", Some(13), [0.1, 0.5, 0.0]),
            ("foot.R", Some(14), [0.1, 0.1, 0.0]),
            ("thigh.L", Some(0), [-0.1, 0.9, 0.0]),
            ("shin.L", Some(16), [-0.1, 0.5, 0.0]),
            ("foot.L", Some(17), [-0.1, 0.1, 0.0]),
        ];
        // `.R` at +X is the character's left: the position wins over the marker.
        let matched = match_skeleton(&skeleton(&base));
        let name = |m: &Matched, bone: &str| m.table.get(bone).cloned();
        assert_eq!(name(&matched, "hand.R").as_deref(), Some("LeftHand"));
        assert_eq!(name(&matched, "thigh.L").as_deref(), Some("RightUpperLeg"));
        assert_eq!(name(&matched, "root").as_deref(), Some("Hips"));

        // A stray hand bone under the root does not take the arm's place.
        let mut stray = base.clone();
        stray.push(("ORG-hand.R", Some(0), [0.6, 1.0, 0.0]));
        let matched = match_skeleton(&skeleton(&stray));
        assert_eq!(name(&matched, "hand.R").as_deref(), Some("LeftHand"));
        assert_eq!(name(&matched, "chest").as_deref(), Some("Chest"));

        // No legs: the hips are the topmost centred bone, not the chest.
        let legless: Vec<_> = base[..13].to_vec();
        let matched = match_skeleton(&skeleton(&legless));
        assert_eq!(name(&matched, "root").as_deref(), Some("Hips"));
        assert_eq!(name(&matched, "chest").as_deref(), Some("Chest"));

        // One arm: the chest is the first centred bone above it; neck and head still found.
        let mut one = base[..7].to_vec();
        one.extend_from_slice(&base[11..]);
        for b in &mut one {
            // Re-index parents after dropping bones 7..=10.
            b.1 = b.1.map(|p| if p > 10 { p - 4 } else { p });
        }
        let matched = match_skeleton(&skeleton(&one));
        assert_eq!(name(&matched, "chest").as_deref(), Some("Chest"));
        assert_eq!(name(&matched, "head").as_deref(), Some("Head"));
        assert_eq!(name(&matched, "neck").as_deref(), Some("Neck"));
    }
}
