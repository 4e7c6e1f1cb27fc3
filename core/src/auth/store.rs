//! Where tokens are kept between requests and runs: the [`TokenStore`] interface, in memory
//! by default ([`MemoryTokenStore`]), or in a JSON file only its owner can read
//! ([`FileTokenStore`]). Entries are keyed by the MCP server's URL, so one store serves
//! several servers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::token::Credentials;
use crate::error::{Error, Result};

/// Keeps each MCP server's [`Credentials`] (token, issuer, registered client). Called from
/// the connection's task: keep each call short. Errors are reported as an auth failure
/// (nothing is retried).
pub trait TokenStore: Send + Sync {
    /// What is stored for `server` (the MCP endpoint URL), if anything.
    fn load(&self, server: &str) -> Result<Option<Credentials>>;
    /// Replace what is stored for `server`.
    fn save(&self, server: &str, credentials: &Credentials) -> Result<()>;
    /// Forget what is stored for `server`.
    fn clear(&self, server: &str) -> Result<()>;
}

/// Tokens kept in memory for the life of the store (the default).
#[derive(Default)]
pub struct MemoryTokenStore {
    entries: Mutex<BTreeMap<String, Credentials>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, server: &str) -> Result<Option<Credentials>> {
        Ok(self.entries.lock().unwrap().get(server).cloned())
    }
    fn save(&self, server: &str, credentials: &Credentials) -> Result<()> {
        self.entries
            .lock()
            .unwrap()
            .insert(server.to_owned(), credentials.clone());
        Ok(())
    }
    fn clear(&self, server: &str) -> Result<()> {
        self.entries.lock().unwrap().remove(server);
        Ok(())
    }
}

/// Tokens kept in a JSON file (`{server URL: credentials}`), created with mode 0600 and
/// replaced atomically on each save; a file readable by others is refused.
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_all(&self) -> Result<BTreeMap<String, Credentials>> {
        let io = |e: std::io::Error| {
            Error::InvalidArgument(format!("token file {}: {e}", self.path.display()))
        };
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(io(e)),
        };
        crate::secret::refuse_shared_mode(&self.path, &meta, "token file")?;
        let text = std::fs::read(&self.path).map_err(io)?;
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(BTreeMap::new());
        }
        // The parse error says where, never what (the file holds secrets).
        serde_json::from_slice(&text).map_err(|e| {
            Error::InvalidArgument(format!(
                "token file {} is not a valid token store (line {}, column {})",
                self.path.display(),
                e.line(),
                e.column()
            ))
        })
    }

    fn write_all(&self, all: &BTreeMap<String, Credentials>) -> Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let io = |e: std::io::Error| {
            Error::InvalidArgument(format!("token file {}: {e}", self.path.display()))
        };
        let text = serde_json::to_vec_pretty(all)
            .map_err(|e| Error::InvalidArgument(format!("token store: {e}")))?;
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(io)?;
        let written = f.write_all(&text).and_then(|_| f.sync_all());
        drop(f);
        if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, &self.path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        Ok(())
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, server: &str) -> Result<Option<Credentials>> {
        let _g = self.lock.lock().unwrap();
        Ok(self.read_all()?.remove(server))
    }
    fn save(&self, server: &str, credentials: &Credentials) -> Result<()> {
        let _g = self.lock.lock().unwrap();
        let mut all = self.read_all()?;
        all.insert(server.to_owned(), credentials.clone());
        self.write_all(&all)
    }
    fn clear(&self, server: &str) -> Result<()> {
        let _g = self.lock.lock().unwrap();
        let mut all = self.read_all()?;
        if all.remove(server).is_some() {
            self.write_all(&all)?;
        }
        Ok(())
    }
}

/// A [`TokenStore`] as the bindings see one: each server's credentials as JSON text (the
/// format [`FileTokenStore`] writes for one server), kept by the program's own code (a C
/// callback, a Python object). Wrap one in [`JsonTokenStore`] to get a [`TokenStore`].
pub trait JsonStore: Send + Sync {
    /// The JSON text stored for `server`, if any.
    fn load(&self, server: &str) -> Result<Option<String>>;
    /// Replace what is stored for `server` with `json` (it holds secrets: keep it private).
    fn save(&self, server: &str, json: &str) -> Result<()>;
    /// Forget what is stored for `server`.
    fn clear(&self, server: &str) -> Result<()>;
}

/// The [`TokenStore`] over a [`JsonStore`]: the core owns the format, the program owns
/// where it goes. Text that does not parse is an error that says where, never what.
pub struct JsonTokenStore<S>(pub S);

impl<S: JsonStore> TokenStore for JsonTokenStore<S> {
    fn load(&self, server: &str) -> Result<Option<Credentials>> {
        match self.0.load(server)? {
            None => Ok(None),
            Some(t) if t.trim().is_empty() => Ok(None),
            Some(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
                Error::InvalidArgument(format!(
                    "token store: the stored credentials of {server} are not valid (line {}, column {})",
                    e.line(),
                    e.column()
                ))
            }),
        }
    }
    fn save(&self, server: &str, credentials: &Credentials) -> Result<()> {
        let text = serde_json::to_string(credentials)
            .map_err(|e| Error::InvalidArgument(format!("token store: {e}")))?;
        self.0.save(server, &text)
    }
    fn clear(&self, server: &str) -> Result<()> {
        self.0.clear(server)
    }
}

#[cfg(test)]
mod tests {
    use super::super::token::Token;
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn creds(at: &str) -> Credentials {
        Credentials {
            token: Some(Token::bearer(at)),
            issuer: Some("https://as.example".into()),
            ..Default::default()
        }
    }

    #[test]
    fn memory_store_keys_by_server() {
        let s = MemoryTokenStore::new();
        s.save("https://a/mcp", &creds("A")).unwrap();
        s.save("https://b/mcp", &creds("B")).unwrap();
        assert_eq!(s.load("https://a/mcp").unwrap(), Some(creds("A")));
        s.clear("https://a/mcp").unwrap();
        assert_eq!(s.load("https://a/mcp").unwrap(), None);
        assert_eq!(s.load("https://b/mcp").unwrap(), Some(creds("B")));
    }

    #[test]
    fn file_store_is_owner_only_and_survives_reopening() {
        let dir = std::env::temp_dir().join(format!("codex-auth-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_file(&path);
        let s = FileTokenStore::new(&path);
        assert_eq!(s.load("https://a/mcp").unwrap(), None);
        s.save("https://a/mcp", &creds("A")).unwrap();
        s.save("https://b/mcp", &creds("B")).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = FileTokenStore::new(&path);
        assert_eq!(again.load("https://a/mcp").unwrap(), Some(creds("A")));
        again.clear("https://a/mcp").unwrap();
        assert_eq!(s.load("https://a/mcp").unwrap(), None);
        assert_eq!(s.load("https://b/mcp").unwrap(), Some(creds("B")));
        // A file others can read is refused, without its content in the message.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = s.load("https://b/mcp").unwrap_err().to_string();
        assert!(
            err.contains("readable by others") && err.contains("chmod"),
            "{err}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&path, b"{\"x\": not json SECRET}").unwrap();
        let err = s.load("x").unwrap_err().to_string();
        assert!(err.contains("line 1") && !err.contains("SECRET"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_store_round_trips_and_hides_bad_text() {
        #[derive(Default)]
        struct Texts(Mutex<BTreeMap<String, String>>);
        impl JsonStore for Texts {
            fn load(&self, server: &str) -> Result<Option<String>> {
                Ok(self.0.lock().unwrap().get(server).cloned())
            }
            fn save(&self, server: &str, json: &str) -> Result<()> {
                self.0.lock().unwrap().insert(server.into(), json.into());
                Ok(())
            }
            fn clear(&self, server: &str) -> Result<()> {
                self.0.lock().unwrap().remove(server);
                Ok(())
            }
        }
        let s = JsonTokenStore(Texts::default());
        assert_eq!(s.load("https://a/mcp").unwrap(), None);
        s.save("https://a/mcp", &creds("A")).unwrap();
        assert_eq!(s.load("https://a/mcp").unwrap(), Some(creds("A")));
        s.clear("https://a/mcp").unwrap();
        assert_eq!(s.load("https://a/mcp").unwrap(), None);
        s.0.save("x", "{\"token\": SECRET").unwrap();
        let err = s.load("x").unwrap_err().to_string();
        assert!(err.contains("line 1") && !err.contains("SECRET"), "{err}");
    }
}
