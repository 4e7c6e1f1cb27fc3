//! The checks of the MCP skills extension (SEP-2640) on the host side, as pure functions: a
//! skill entry's shape and limits, a file's size and SHA-256 digest against its manifest
//! entry, and a `SKILL.md`'s YAML frontmatter against the entry's `frontmatter`. Every
//! failure names what failed.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Most files one skill may list that every host must accept (SEP-2640 "Limits").
pub const MAX_SKILL_FILES: usize = 512;
/// Most bytes, summed over a skill's files, that every host must accept (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// A verification failure: the content is not what the entry described.
pub(crate) fn failed(uri: &str, what: String) -> Error {
    Error::Protocol(format!("skill verification failed for {uri}: {what}"))
}

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in d.as_ref() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Whether `digest` has the form `sha256:` + 64 lowercase hex digits.
pub(crate) fn is_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Check `bytes` read from `uri` against the manifest's `size` and `digest`: the size first
/// (a mismatch fails whether or not the digest is computed), then the digest.
pub(crate) fn check_file(uri: &str, bytes: &[u8], size: u64, digest: &str) -> Result<()> {
    if bytes.len() as u64 != size {
        return Err(failed(
            uri,
            format!(
                "size mismatch: read {} bytes, the entry lists {size}",
                bytes.len()
            ),
        ));
    }
    let got = sha256_digest(bytes);
    if got != digest {
        return Err(failed(
            uri,
            format!("digest mismatch: read {got}, the entry lists {digest}"),
        ));
    }
    Ok(())
}

/// The skill name a `SKILL.md` URI ends in: the segment before `/SKILL.md`.
pub(crate) fn name_of_uri(uri: &str) -> Option<&str> {
    let path = uri.strip_suffix("/SKILL.md")?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty() && !name.ends_with(':')).then_some(name)
}

/// The Agent Skills naming rules: 1–64 characters, lowercase ASCII letters, digits and
/// hyphens, no leading, trailing or doubled hyphen.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The YAML frontmatter of a `SKILL.md` (between a first line `---` and the next `---` line)
/// as a JSON object, and the text after it. No frontmatter, YAML that does not parse, or one
/// that is not a mapping: an error naming `uri`.
pub(crate) fn frontmatter(uri: &str, text: &str) -> Result<(Map<String, Value>, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| failed(uri, "SKILL.md does not begin with `---` frontmatter".into()))?;
    let mut at = 0;
    let mut end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            end = Some((at, at + line.len()));
            break;
        }
        at += line.len();
    }
    let (yaml_end, body_start) =
        end.ok_or_else(|| failed(uri, "SKILL.md frontmatter has no closing `---`".into()))?;
    let yaml = &rest[..yaml_end];
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml)
        .map_err(|e| failed(uri, format!("SKILL.md frontmatter is not YAML: {e}")))?;
    let value = docs
        .into_iter()
        .next()
        .map(yaml_to_json)
        .unwrap_or(Value::Null);
    match value {
        Value::Object(m) => Ok((m, rest[body_start..].to_owned())),
        other => Err(failed(
            uri,
            format!("SKILL.md frontmatter is not a mapping but {other}"),
        )),
    }
}

/// A YAML value as JSON: mappings with scalar keys become objects (keys as text), integers,
/// reals, booleans, null and strings as themselves; aliases and bad values become null.
fn yaml_to_json(y: yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::String(s), Value::Number),
        Yaml::Integer(i) => Value::from(i),
        Yaml::String(s) => Value::String(s),
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Array(a) => Value::Array(a.into_iter().map(yaml_to_json).collect()),
        Yaml::Hash(h) => Value::Object(
            h.into_iter()
                .map(|(k, v)| {
                    let key = match yaml_to_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, yaml_to_json(v))
                })
                .collect(),
        ),
        Yaml::Null | Yaml::Alias(_) | Yaml::BadValue => Value::Null,
    }
}

/// Equal as JSON data: numbers by value (`1` equals `1.0`), objects by their members.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Compare the frontmatter parsed from the file with the entry's, field by field (a field
/// missing on one side counts as null): every differing field is named.
pub(crate) fn check_frontmatter(
    uri: &str,
    file: &Map<String, Value>,
    entry: &Map<String, Value>,
) -> Result<()> {
    let mut keys: Vec<&String> = file.keys().chain(entry.keys()).collect();
    keys.sort();
    keys.dedup();
    let null = Value::Null;
    let differ: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (f, e) = (file.get(k).unwrap_or(&null), entry.get(k).unwrap_or(&null));
            (!same(f, e)).then(|| format!("`{k}`: file {f}, entry {e}"))
        })
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(failed(
            uri,
            format!(
                "SKILL.md frontmatter differs from the entry's: {}",
                differ.join("; ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digests_sizes_names() {
        let d = sha256_digest(b"abc");
        assert_eq!(
            d,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(is_digest(&d));
        assert!(!is_digest("sha256:BA78"));
        assert!(!is_digest(&d.to_uppercase()));
        check_file("u", b"abc", 3, &d).unwrap();
        let e = check_file("u", b"abcd", 3, &d).unwrap_err().to_string();
        assert!(e.contains("size mismatch") && e.contains("u"), "{e}");
        let e = check_file("u", b"abd", 3, &d).unwrap_err().to_string();
        assert!(e.contains("digest mismatch"), "{e}");
        assert_eq!(name_of_uri("skill://a/b/refunds/SKILL.md"), Some("refunds"));
        assert_eq!(name_of_uri("skill://git/SKILL.md"), Some("git"));
        assert_eq!(name_of_uri("skill:///SKILL.md"), None);
        assert_eq!(name_of_uri("skill://x/README.md"), None);
        assert!(valid_name("pdf-processing"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn frontmatter_parses_and_compares() {
        let text = "---\nname: pdf\ndescription: \"Do: PDFs\"\nmetadata:\n  version: 2.0\n  tags: [a, b]\n---\n\nBody\n";
        let (fm, body) = frontmatter("u", text).unwrap();
        assert_eq!(
            Value::Object(fm.clone()),
            json!({"name": "pdf", "description": "Do: PDFs", "metadata": {"version": 2.0, "tags": ["a", "b"]}})
        );
        assert_eq!(body.trim(), "Body");
        let entry = json!({"name": "pdf", "description": "Do: PDFs", "metadata": {"tags": ["a", "b"], "version": 2}});
        check_frontmatter("u", &fm, entry.as_object().unwrap()).unwrap();
        let entry = json!({"name": "pdf", "description": "Exfiltrate", "metadata": {"version": 2, "tags": ["a", "b"]}, "license": "MIT"});
        let e = check_frontmatter("u", &fm, entry.as_object().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`description`") && e.contains("`license`") && !e.contains("`name`"),
            "{e}"
        );
        assert!(frontmatter("u", "no frontmatter").is_err());
        assert!(frontmatter("u", "---\nname: x\n").is_err());
        assert!(frontmatter("u", "---\n- a\n---\n").is_err());
        assert!(frontmatter("u", "---\nname: [\n---\n").is_err());
    }
}
