//! BVH motion files (MakeHuman's poses, its face pose units, mocap clips) read strictly: the
//! hierarchy (joints, offsets, channel orders, end sites) and every frame, each value finite,
//! every count bounded before anything is allocated for it. Coordinates and angles are kept
//! as the file has them (MakeHuman's files are Z-up, degrees); converting them is
//! [`crate::motion`]'s business.

use crate::error::{PoseError, PoseErrorKind, column_of, quoted};
use glam::{DQuat, DVec3};
use std::collections::HashMap;

/// Joints in one file at most (MakeHuman's default skeleton has 163 bones, mocap files ~30).
pub const MAX_JOINTS: usize = 4096;
/// Nesting depth of joints at most (a hand's finger tip is about 12 deep).
pub const MAX_DEPTH: usize = 256;
/// Channel values in all frames together at most (128 MiB of numbers): a 14-frame walk of
/// 100 channels is 1,400; a minute of mocap at 120 frames a second, 60 channels, 432,000.
pub const MAX_VALUES: usize = 1 << 24;

/// One channel of a joint: a translation or a rotation about one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Translation along X.
    Xposition,
    /// Translation along Y.
    Yposition,
    /// Translation along Z.
    Zposition,
    /// Rotation about X, degrees.
    Xrotation,
    /// Rotation about Y, degrees.
    Yrotation,
    /// Rotation about Z, degrees.
    Zrotation,
}

impl Channel {
    fn parse(word: &str) -> Option<Channel> {
        Some(match word {
            "Xposition" => Channel::Xposition,
            "Yposition" => Channel::Yposition,
            "Zposition" => Channel::Zposition,
            "Xrotation" => Channel::Xrotation,
            "Yrotation" => Channel::Yrotation,
            "Zrotation" => Channel::Zrotation,
            _ => return None,
        })
    }

    /// The axis it moves along or turns about.
    pub fn axis(self) -> DVec3 {
        match self {
            Channel::Xposition | Channel::Xrotation => DVec3::X,
            Channel::Yposition | Channel::Yrotation => DVec3::Y,
            Channel::Zposition | Channel::Zrotation => DVec3::Z,
        }
    }

    /// Whether it is a rotation.
    pub fn is_rotation(self) -> bool {
        matches!(
            self,
            Channel::Xrotation | Channel::Yrotation | Channel::Zrotation
        )
    }
}

/// One joint of the hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct BvhJoint {
    /// Its name (unique in the file).
    pub name: String,
    /// Its parent joint, `None` for the root.
    pub parent: Option<usize>,
    /// Its offset from the parent (the root's: from the origin), in the file's units and axes.
    pub offset: DVec3,
    /// Its channels, in the file's order.
    pub channels: Vec<Channel>,
    /// Where its channels start in a frame's values.
    pub first_channel: usize,
    /// The `End Site` offset, for a joint that ends a chain.
    pub end_site: Option<DVec3>,
    /// The line of its `ROOT` or `JOINT`.
    pub line: usize,
}

impl BvhJoint {
    /// The joint's rotation in a frame whose values are `frame`: the product of its rotation
    /// channels in the file's order, each turning by its value in degrees (`Zrotation
    /// Xrotation Yrotation` is Rz Rx Ry, as BVH defines it).
    pub fn rotation(&self, frame: &[f64]) -> DQuat {
        let mut rotation = DQuat::IDENTITY;
        for (i, channel) in self.channels.iter().enumerate() {
            if channel.is_rotation() {
                let degrees = frame.get(self.first_channel + i).copied().unwrap_or(0.0);
                rotation *= DQuat::from_axis_angle(channel.axis(), degrees.to_radians());
            }
        }
        rotation
    }

    /// The joint's translation channels in a frame (zero for those it lacks).
    pub fn translation(&self, frame: &[f64]) -> DVec3 {
        let mut translation = DVec3::ZERO;
        for (i, channel) in self.channels.iter().enumerate() {
            if !channel.is_rotation() {
                let value = frame.get(self.first_channel + i).copied().unwrap_or(0.0);
                translation += channel.axis() * value;
            }
        }
        translation
    }
}

/// A BVH file: its hierarchy and frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Bvh {
    /// The joints, parents before children, in file order.
    pub joints: Vec<BvhJoint>,
    /// Seconds from one frame to the next.
    pub frame_time: f64,
    /// Channel values of one frame.
    pub channel_count: usize,
    /// Every frame's values, frame after frame.
    values: Vec<f64>,
}

impl Bvh {
    /// How many frames.
    pub fn frame_count(&self) -> usize {
        self.values
            .len()
            .checked_div(self.channel_count)
            .unwrap_or(0)
    }

    /// The values of frame `index` (`None` past the last frame).
    pub fn frame(&self, index: usize) -> Option<&[f64]> {
        if self.channel_count == 0 {
            return (index == 0).then_some(&[][..]);
        }
        self.values.chunks_exact(self.channel_count).nth(index)
    }

    /// The joint named `name`.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
}

/// A word of the file with its line and column.
#[derive(Debug, Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

/// The words of the hierarchy part, one at a time, and the lines after `MOTION`.
struct Words<'a> {
    lines: std::iter::Peekable<Box<dyn Iterator<Item = (usize, &'a str)> + 'a>>,
    pending: std::collections::VecDeque<Word<'a>>,
    last_line: usize,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Self {
        let lines: Box<dyn Iterator<Item = (usize, &'a str)> + 'a> =
            Box::new(location::text::lines(text));
        Words {
            lines: lines.peekable(),
            pending: std::collections::VecDeque::new(),
            last_line: 1,
        }
    }

    fn next(&mut self) -> Option<Word<'a>> {
        while self.pending.is_empty() {
            let (n, line) = self.lines.next()?;
            self.last_line = n;
            self.pending.extend(line.split_whitespace().map(|w| Word {
                text: w,
                line: n,
                column: column_of(line, w),
            }));
        }
        self.pending.pop_front()
    }

    /// The next word, which must be there (`what` names it for the error).
    fn expect(&mut self, what: &str) -> Result<Word<'a>, PoseError> {
        let line = self.last_line;
        self.next().ok_or_else(|| {
            PoseError::at(
                line,
                1,
                PoseErrorKind::Missing(format!("{what} (the file ends first)")),
            )
        })
    }

    /// The next word, which must be `keyword`.
    fn keyword(&mut self, keyword: &str) -> Result<Word<'a>, PoseError> {
        let word = self.expect(&format!("`{keyword}`"))?;
        if word.text == keyword {
            Ok(word)
        } else {
            Err(at(
                word,
                PoseErrorKind::Malformed(format!(
                    "expected `{keyword}`, found `{}`",
                    quoted(word.text)
                )),
            ))
        }
    }

    /// The next word as a finite number.
    fn number(&mut self, what: &str) -> Result<f64, PoseError> {
        let word = self.expect(what)?;
        number(word, what)
    }
}

fn at(word: Word<'_>, kind: PoseErrorKind) -> PoseError {
    PoseError::at(word.line, word.column, kind)
}

fn number(word: Word<'_>, what: &str) -> Result<f64, PoseError> {
    match word.text.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err(at(
            word,
            PoseErrorKind::OutOfRange(format!("{what} `{}` is not finite", quoted(word.text))),
        )),
        Err(_) => Err(at(
            word,
            PoseErrorKind::Malformed(format!(
                "{what}: expected a number, found `{}`",
                quoted(word.text)
            )),
        )),
    }
}

fn vector(words: &mut Words<'_>, what: &str) -> Result<DVec3, PoseError> {
    Ok(DVec3::new(
        words.number(what)?,
        words.number(what)?,
        words.number(what)?,
    ))
}

/// The hierarchy being read: joints so far, names seen, channels so far.
#[derive(Default)]
struct Hierarchy {
    joints: Vec<BvhJoint>,
    names: HashMap<String, usize>,
    channels: usize,
}

impl Hierarchy {
    /// Reads a joint's body after its name: `{ OFFSET x y z CHANNELS n ...` and then its
    /// children and end site up to its `}`. Iterative: a file nested 10,000 deep costs no
    /// stack, only the depth check.
    fn read(&mut self, words: &mut Words<'_>, root: Word<'_>) -> Result<(), PoseError> {
        let mut open: Vec<usize> = Vec::new();
        self.begin(words, root, None, &mut open)?;
        while let Some(&current) = open.last() {
            let word = words.expect("`}`")?;
            match word.text {
                "}" => {
                    open.pop();
                }
                "JOINT" => {
                    let name = words.expect("a joint name")?;
                    self.begin(words, name, Some(current), &mut open)?;
                }
                "End" => {
                    words.keyword("Site")?;
                    words.keyword("{")?;
                    words.keyword("OFFSET")?;
                    let offset = vector(words, "an end site offset")?;
                    words.keyword("}")?;
                    if self.joints[current].end_site.replace(offset).is_some() {
                        return Err(at(
                            word,
                            PoseErrorKind::Malformed(format!(
                                "joint `{}` has a second end site",
                                quoted(&self.joints[current].name)
                            )),
                        ));
                    }
                }
                other => {
                    return Err(at(
                        word,
                        PoseErrorKind::Malformed(format!(
                            "expected `JOINT`, `End Site` or `}}`, found `{}`",
                            quoted(other)
                        )),
                    ));
                }
            }
        }
        Ok(())
    }

    /// A joint's name, `{`, `OFFSET` and `CHANNELS`; pushes it on `open`.
    fn begin(
        &mut self,
        words: &mut Words<'_>,
        name: Word<'_>,
        parent: Option<usize>,
        open: &mut Vec<usize>,
    ) -> Result<(), PoseError> {
        if open.len() >= MAX_DEPTH {
            return Err(at(
                name,
                PoseErrorKind::TooLarge(format!("joints nest deeper than {MAX_DEPTH}")),
            ));
        }
        if self.joints.len() >= MAX_JOINTS {
            return Err(at(
                name,
                PoseErrorKind::TooLarge(format!("more than {MAX_JOINTS} joints")),
            ));
        }
        if let Some(&first) = self.names.get(name.text) {
            return Err(at(
                name,
                PoseErrorKind::Repeated {
                    name: quoted(name.text),
                    first: self.joints[first].line,
                },
            ));
        }
        words.keyword("{")?;
        words.keyword("OFFSET")?;
        let offset = vector(words, "an offset")?;
        let channels = read_channels(words)?;
        let index = self.joints.len();
        self.names.insert(name.text.to_owned(), index);
        self.joints.push(BvhJoint {
            name: name.text.to_owned(),
            parent,
            offset,
            first_channel: self.channels,
            channels,
            end_site: None,
            line: name.line,
        });
        self.channels += self.joints[index].channels.len();
        open.push(index);
        Ok(())
    }
}

/// `CHANNELS n name...`: at most six, each once.
fn read_channels(words: &mut Words<'_>) -> Result<Vec<Channel>, PoseError> {
    words.keyword("CHANNELS")?;
    let count_word = words.expect("a channel count")?;
    let count = count_word
        .text
        .parse::<usize>()
        .ok()
        .filter(|&n| n <= 6)
        .ok_or_else(|| {
            at(
                count_word,
                PoseErrorKind::Malformed(format!(
                    "a channel count is 0 to 6, not `{}`",
                    quoted(count_word.text)
                )),
            )
        })?;
    let mut channels = Vec::with_capacity(count);
    for _ in 0..count {
        let word = words.expect("a channel name")?;
        let channel = Channel::parse(word.text).ok_or_else(|| {
            at(
                word,
                PoseErrorKind::Malformed(format!(
                    "unknown channel `{}` (Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation)",
                    quoted(word.text)
                )),
            )
        })?;
        if channels.contains(&channel) {
            return Err(at(
                word,
                PoseErrorKind::Malformed(format!("channel `{}` is given twice", word.text)),
            ));
        }
        channels.push(channel);
    }
    Ok(channels)
}

/// `MOTION`, `Frames: N`, `Frame Time: T`, then N lines of values.
fn read_motion(words: &mut Words<'_>, channels: usize) -> Result<(f64, Vec<f64>), PoseError> {
    words.keyword("MOTION")?;
    words.keyword("Frames:")?;
    let frames_word = words.expect("the frame count")?;
    let frames = frames_word.text.parse::<usize>().map_err(|_| {
        at(
            frames_word,
            PoseErrorKind::Malformed(format!(
                "the frame count is a whole number, not `{}`",
                quoted(frames_word.text)
            )),
        )
    })?;
    if frames == 0 {
        return Err(at(
            frames_word,
            PoseErrorKind::OutOfRange("a motion of 0 frames".into()),
        ));
    }
    if frames.saturating_mul(channels.max(1)) > MAX_VALUES {
        return Err(at(
            frames_word,
            PoseErrorKind::TooLarge(format!(
                "{frames} frames of {channels} channels is more than {MAX_VALUES} values"
            )),
        ));
    }
    words.keyword("Frame")?;
    words.keyword("Time:")?;
    let time_word = words.expect("the frame time")?;
    let frame_time = number(time_word, "the frame time")?;
    if frame_time <= 0.0 {
        return Err(at(
            time_word,
            PoseErrorKind::OutOfRange(format!(
                "the frame time is {}, not a positive number of seconds",
                quoted(time_word.text)
            )),
        ));
    }
    if let Some(extra) = words.pending.front() {
        return Err(at(
            *extra,
            PoseErrorKind::Malformed("a frame starts on a line of its own".into()),
        ));
    }
    Ok((frame_time, read_frames(words, frames, channels)?))
}

/// The `frames` lines of `channels` values each after the motion header.
fn read_frames(
    words: &mut Words<'_>,
    frames: usize,
    channels: usize,
) -> Result<Vec<f64>, PoseError> {
    // Values grow as lines are read: a file declaring many frames and holding few allocates
    // for what it holds.
    let mut values = Vec::new();
    let mut read = 0usize;
    let mut last_line = words.last_line;
    for (n, line) in words.lines.by_ref() {
        last_line = n;
        let before = values.len();
        for word in line.split_whitespace() {
            let word = Word {
                text: word,
                line: n,
                column: column_of(line, word),
            };
            if read >= frames {
                return Err(at(
                    word,
                    PoseErrorKind::Malformed(format!(
                        "more than the {frames} frames the file declares"
                    )),
                ));
            }
            values.push(number(word, "a channel value")?);
        }
        let got = values.len() - before;
        if got == 0 {
            continue;
        }
        if got != channels {
            return Err(PoseError::at(
                n,
                1,
                PoseErrorKind::Malformed(format!(
                    "frame {} has {got} values; the hierarchy has {channels} channels",
                    read + 1
                )),
            ));
        }
        read += 1;
    }
    if read != frames {
        return Err(PoseError::at(
            last_line,
            1,
            PoseErrorKind::Missing(format!(
                "frames {} to {frames} (the file declares {frames}, holds {read})",
                read + 1
            )),
        ));
    }
    Ok(values)
}

/// Reads a BVH file's text.
pub fn parse_bvh(text: &str) -> Result<Bvh, PoseError> {
    let text = location::text::strip_bom(text);
    let mut words = Words::new(text);
    words.keyword("HIERARCHY")?;
    words.keyword("ROOT")?;
    let root = words.expect("the root's name")?;
    let mut hierarchy = Hierarchy::default();
    hierarchy.read(&mut words, root)?;
    if hierarchy.channels == 0 {
        return Err(PoseError::at(
            1,
            1,
            PoseErrorKind::Missing("a channel (no joint has any)".into()),
        ));
    }
    if let Some(next) = words.pending.front().copied() {
        if next.text == "ROOT" {
            return Err(at(
                next,
                PoseErrorKind::Malformed("a second `ROOT`: one hierarchy per file".into()),
            ));
        }
    }
    let (frame_time, values) = read_motion(&mut words, hierarchy.channels)?;
    Ok(Bvh {
        joints: hierarchy.joints,
        frame_time,
        channel_count: hierarchy.channels,
        values,
    })
}

/// A BVH's `.meta` file: `key value` lines (MakeHuman's `name`, `tag`, `description`,
/// `license`, `copyright`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BvhMeta {
    /// `name`.
    pub name: Option<String>,
    /// Every `tag`.
    pub tags: Vec<String>,
    /// `description`.
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// Other keys, in file order.
    pub other: Vec<(String, String)>,
}

/// Lines of a `.meta` file at most (MakeHuman's have five).
pub const MAX_META_LINES: usize = 1000;

/// Reads a `.meta` file's text.
pub fn parse_meta(text: &str) -> Result<BvhMeta, PoseError> {
    let mut meta = BvhMeta::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (n, line) in location::text::lines(location::text::strip_bom(text)) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if n > MAX_META_LINES {
            return Err(PoseError::at(
                n,
                1,
                PoseErrorKind::TooLarge(format!("more than {MAX_META_LINES} lines")),
            ));
        }
        let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = value.trim().to_owned();
        if key != "tag" {
            if let Some(first) = seen.insert(key.to_owned(), n) {
                return Err(PoseError::at(
                    n,
                    1,
                    PoseErrorKind::Repeated {
                        name: quoted(key),
                        first,
                    },
                ));
            }
        }
        match key {
            "name" => meta.name = Some(value),
            "tag" => meta.tags.push(value),
            "description" => meta.description = Some(value),
            "license" => meta.license = Some(value),
            _ => meta.other.push((key.to_owned(), value)),
        }
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_JOINTS: &str = "HIERARCHY\nROOT root\n{\n\tOFFSET 0 0 1\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\tJOINT arm\n\t{\n\t\tOFFSET 1 0 0\n\t\tCHANNELS 3 Xrotation Yrotation Zrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 0 2\n\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.041667\n1 2 3 90 0 0 0 0 0\n0 0 0 0 90 0 0 0 45\n";

    fn parsed(text: &str) -> Bvh {
        parse_bvh(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn error(text: &str) -> String {
        parse_bvh(text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn a_hierarchy_and_its_frames_are_read() {
        let bvh = parsed(TWO_JOINTS);
        assert_eq!(bvh.joints.len(), 2);
        assert_eq!(bvh.joints[1].parent, Some(0));
        assert_eq!(bvh.joints[1].offset, DVec3::X);
        assert_eq!(bvh.joints[1].end_site, Some(DVec3::new(0.0, 0.0, 2.0)));
        assert_eq!(bvh.joints[1].first_channel, 6);
        assert_eq!(bvh.channel_count, 9);
        assert_eq!(bvh.frame_count(), 2);
        assert!((bvh.frame_time - 0.041667).abs() < 1e-12);
        assert_eq!(bvh.frame(1).map(|f| f[4]), Some(90.0));
        assert_eq!(bvh.frame(2), None);
        let frame = bvh.frame(0).unwrap_or_default();
        assert_eq!(bvh.joints[0].translation(frame), DVec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn rotations_multiply_in_channel_order_in_degrees() {
        let bvh = parsed(TWO_JOINTS);
        // Frame 0, root: Zrotation 90 only. Worked by hand: Rz(90) takes X to Y.
        let frame = bvh.frame(0).unwrap_or_default();
        let x = bvh.joints[0].rotation(frame) * DVec3::X;
        assert!((x - DVec3::Y).length() < 1e-12, "{x}");
        // Frame 1, root: Zrotation 0, Xrotation 90. Rx(90) takes Y to Z.
        let frame = bvh.frame(1).unwrap_or_default();
        let y = bvh.joints[0].rotation(frame) * DVec3::Y;
        assert!((y - DVec3::Z).length() < 1e-12, "{y}");
        // Frame 1, arm: X 0, Y 0, Z 45: X goes to (cos 45, sin 45, 0).
        let x = bvh.joints[1].rotation(frame) * DVec3::X;
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((x - DVec3::new(h, h, 0.0)).length() < 1e-12, "{x}");
        // Order matters: Zrotation then Xrotation is Rz Rx, not Rx Rz.
        let both = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 2 Zrotation Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 1\n90 90\n";
        let bvh = parsed(both);
        // Rz(90) Rx(90) applied to Y: Rx takes Y to Z, Rz leaves Z: Z.
        let y = bvh.joints[0].rotation(bvh.frame(0).unwrap_or_default()) * DVec3::Y;
        assert!((y - DVec3::Z).length() < 1e-12, "{y}");
    }

    #[test]
    fn hostile_files_are_refused_at_their_place() {
        let cases: Vec<(String, &str)> = vec![
            (
                TWO_JOINTS.replace("Zrotation Xrotation", "Zrotation Wrotation"),
                "5:53: unknown channel `Wrotation`",
            ),
            (TWO_JOINTS.replace("1 2 3 90", "1 2 NaN 90"), "not finite"),
            (TWO_JOINTS.replace("1 2 3 90", "1 2 inf 90"), "not finite"),
            (TWO_JOINTS.replace("Frames: 2", "Frames: 3"), "holds 2"),
            (
                TWO_JOINTS.replace("Frames: 2", "Frames: 1"),
                "more than the 1 frames",
            ),
            (
                TWO_JOINTS.replace("0 0 0 0 90 0 0 0 45", "0 0 0 0 90 0 0 0"),
                "frame 2 has 8 values",
            ),
            (
                TWO_JOINTS.replace("Frame Time: 0.041667", "Frame Time: 0"),
                "not a positive",
            ),
            (TWO_JOINTS.replace("JOINT arm", "JOINT root"), "given again"),
            (TWO_JOINTS.replace("CHANNELS 3", "CHANNELS 7"), "0 to 6"),
            (TWO_JOINTS.replace("MOTION", ""), "expected `MOTION`"),
            (
                TWO_JOINTS[..TWO_JOINTS.find("\t\tEnd Site").unwrap_or(0)].to_owned(),
                "the file ends first",
            ),
            (
                TWO_JOINTS.replace("Frames: 2", "Frames: 1000000000"),
                "more than 16777216 values",
            ),
            (
                TWO_JOINTS.replace("HIERARCHY", "HIERARCHX"),
                "expected `HIERARCHY`",
            ),
        ];
        for (text, expected) in cases {
            let message = error(&text);
            assert!(message.contains(expected), "{expected}: {message}");
        }
        // A million frames declared, a million held, of one channel: read, bounded.
        let mut many = String::from(
            "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1000000\nFrame Time: 0.01\n",
        );
        for _ in 0..1_000_000 {
            many.push_str("0\n");
        }
        assert_eq!(parsed(&many).frame_count(), 1_000_000);
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let mut deep = String::from(
            "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n",
        );
        for i in 1..10_000 {
            deep.push_str(&format!(
                "JOINT j{i}\n{{\nOFFSET 0 0 1\nCHANNELS 3 Xrotation Yrotation Zrotation\n"
            ));
        }
        let message = error(&deep);
        assert!(message.contains("nest deeper than 256"), "{message}");
        // At the 257th joint's line (four lines a joint after the root's five).
        assert!(message.starts_with("1026:7: "), "{message}");
    }

    #[test]
    fn shipped_poses_read() {
        let Ok(assets) = test_support::makehuman_assets_with(&[
            "poses/tpose.bvh",
            "poseunits/face-poseunits.bvh",
            "poses/sit01.bvh",
        ]) else {
            test_support::skip_or_fail("shipped_poses_read", "no MakeHuman assets with poses");
            return;
        };
        let units = std::fs::read_to_string(assets.join("poseunits/face-poseunits.bvh"))
            .unwrap_or_default();
        let units = parsed(&units);
        assert_eq!(units.frame_count(), 60);
        assert!(units.joint("jaw").is_some());
        let sit =
            parsed(&std::fs::read_to_string(assets.join("poses/sit01.bvh")).unwrap_or_default());
        assert!(sit.frame_count() >= 1);
        assert_eq!(sit.joints[0].parent, None);
    }

    #[test]
    fn meta_files_are_read_strictly() {
        let meta =
            parse_meta("tag Rest poses\nname T-pose\ndescription A pose.\nlicense CC0\ntag b\n")
                .unwrap_or_default();
        assert_eq!(meta.name.as_deref(), Some("T-pose"));
        assert_eq!(meta.tags, ["Rest poses", "b"]);
        let twice = parse_meta("name a\nname b\n").err().map(|e| e.to_string());
        assert_eq!(
            twice.as_deref(),
            Some("2:1: `name` is given again (first on line 1)")
        );
    }
}
