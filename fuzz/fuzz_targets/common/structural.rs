//! Structural mutation of G4MF documents, shared by the `inspect`, `to_mpfb` and `validate`
//! targets: the input's bytes either are the file (raw mode), or drive edits of a valid seed's
//! JSON (indices, counts and sizes changed, keys removed, arrays grown) that stays valid JSON,
//! so the fuzzer reaches the code behind the parser. Each edited document is served as a
//! `.g4tf` (buffer as a data URI) or a `.g4b` (buffer in a BLOB chunk).

use serde_json::{Value, json};

/// A tiny character we wrote (fixtures/validator/valid.g4tf).
const TINY: &[u8] = include_bytes!("../../../fixtures/validator/valid.g4tf");
/// A character converted with MPFB extras (rig fields, source vertices, unskinned weights).
const WITH_EXTRAS: &[u8] = include_bytes!("../../seeds/structural/mpfb_extras.g4tf");

/// Numbers that break size and index arithmetic.
const INTERESTING: [u64; 16] = [
    0,
    1,
    2,
    3,
    4,
    7,
    16,
    255,
    65_535,
    4_294_967_295,
    4_294_967_296,
    1 << 31,
    1 << 53,
    1 << 62,
    u64::MAX - 7,
    u64::MAX,
];

/// Every path to a value in `v` (object keys and array indices), depth first.
fn paths(v: &Value, at: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(PathStep::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(PathStep::Index(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn get_mut<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    let mut at = v;
    for step in path {
        at = match step {
            PathStep::Key(k) => at.get_mut(k.as_str())?,
            PathStep::Index(i) => at.get_mut(*i)?,
        };
    }
    Some(at)
}

/// The reference-bearing properties of G4MF that edits insert.
const G4MF_KEYS: [&str; 12] = [
    "children",
    "joints",
    "mesh",
    "vertices",
    "simplexes",
    "material",
    "bufferView",
    "buffer",
    "vectorSize",
    "byteLength",
    "byteOffset",
    "chunk",
];

/// Applies the edits that `ops` spells to `doc`.
fn mutate(doc: &mut Value, ops: &[u8]) {
    mutate_with(doc, ops, &G4MF_KEYS);
}

/// Applies the edits that `ops` spells to `doc`, inserting `keys` (reference-bearing
/// properties of the format) where an edit adds one.
pub fn mutate_with(doc: &mut Value, ops: &[u8], keys: &[&str]) {
    for op in ops.chunks_exact(4).take(16) {
        let mut all = Vec::new();
        paths(doc, &mut Vec::new(), &mut all);
        let pick = u16::from_le_bytes([op[1], op[2]]) as usize % all.len();
        let path = &all[pick];
        let arg = op[3];
        match op[0] % 8 {
            // An interesting number where a number (or anything) was.
            0 | 1 => {
                if let Some(v) = get_mut(doc, path) {
                    *v = json!(INTERESTING[usize::from(arg) % INTERESTING.len()]);
                }
            }
            // A small change of a number: off-by-one indices and sizes.
            2 => {
                if let Some(v) = get_mut(doc, path) {
                    if let Some(n) = v.as_u64() {
                        *v = json!(n.wrapping_add(u64::from(arg)).wrapping_sub(128));
                    } else if let Some(x) = v.as_f64() {
                        *v = json!(x + f64::from(arg) - 128.0);
                    }
                }
            }
            // Remove a key or an array element.
            3 => {
                if let Some((last, parent)) = path.split_last() {
                    match (get_mut(doc, parent), last) {
                        (Some(Value::Object(m)), PathStep::Key(k)) => {
                            m.shift_remove(k);
                        }
                        (Some(Value::Array(a)), PathStep::Index(i)) if *i < a.len() => {
                            a.remove(*i);
                        }
                        _ => {}
                    }
                }
            }
            // Duplicate an array element (more nodes, more joints, more buffers...).
            4 => {
                if let Some((PathStep::Index(i), parent)) = path.split_last() {
                    if let Some(Value::Array(a)) = get_mut(doc, parent) {
                        if let Some(item) = a.get(*i).cloned() {
                            for _ in 0..=arg % 3 {
                                a.push(item.clone());
                            }
                        }
                    }
                }
            }
            // Another type: null, negative, fraction, string, empty array or object.
            5 => {
                if let Some(v) = get_mut(doc, path) {
                    *v = match arg % 6 {
                        0 => Value::Null,
                        1 => json!(-1),
                        2 => json!(0.5),
                        3 => json!("x"),
                        4 => json!([]),
                        _ => json!({}),
                    };
                }
            }
            // A negative-one joint or index, the schema's one special value.
            6 => {
                if let Some(v) = get_mut(doc, path) {
                    if v.is_u64() {
                        *v = json!(-1);
                    }
                }
            }
            // Swap in a reference-bearing property on an object.
            _ => {
                if let Some(Value::Object(m)) = get_mut(doc, path) {
                    let key = keys[usize::from(arg) % keys.len()];
                    let value = INTERESTING[usize::from(arg) / keys.len() % INTERESTING.len()];
                    m.insert(
                        key.into(),
                        if key == "children" || key == "joints" {
                            json!([value])
                        } else {
                            json!(value)
                        },
                    );
                }
            }
        }
    }
}

fn g4b(json: &[u8], blob: &[u8]) -> Vec<u8> {
    let mut b = b"G4MF\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    b.extend_from_slice(b"JSON\0\0\0\0");
    b.extend_from_slice(&(json.len() as u64).to_le_bytes());
    b.extend_from_slice(json);
    while b.len() % 16 != 0 {
        b.push(b' ');
    }
    b.extend_from_slice(b"BLOB\0\0\0\0");
    b.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    b.extend_from_slice(blob);
    let n = b.len() as u64;
    b[8..16].copy_from_slice(&n.to_le_bytes());
    b
}

/// The file a fuzz input stands for: raw bytes (first byte even) or an edited seed.
pub fn file_from_input(data: &[u8]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else {
        return Vec::new();
    };
    if mode % 2 == 0 {
        return rest.to_vec();
    }
    let seed = if mode & 2 == 0 { TINY } else { WITH_EXTRAS };
    let Ok(mut doc) = serde_json::from_slice::<Value>(seed) else {
        return Vec::new();
    };
    let binary = mode & 4 != 0;
    let mut blob = Vec::new();
    if binary {
        // Move the embedded buffer into a BLOB chunk before editing, as a .g4b holds it.
        let uri = doc["buffers"][0]["uri"].as_str().unwrap_or("").to_owned();
        if let Some(payload) = uri.split_once("base64,").map(|(_, p)| p) {
            use base64::Engine;
            blob = base64::engine::general_purpose::STANDARD
                .decode(payload)
                .unwrap_or_default();
        }
        if let Some(b) = doc["buffers"][0].as_object_mut() {
            b.shift_remove("uri");
            b.insert("chunk".into(), json!(1));
        }
    }
    mutate(&mut doc, rest);
    let json = serde_json::to_vec(&doc).unwrap_or_default();
    if binary { g4b(&json, &blob) } else { json }
}

/// Reader limits small enough for a fuzzer, large enough for the seeds.
pub fn read_options() -> g4mf_reader::ReadOptions {
    g4mf_reader::ReadOptions {
        max_buffer_bytes: 1 << 20,
        max_json_bytes: 1 << 20,
        ..Default::default()
    }
}
