//! The client's requests that the server has not answered yet, by id,
//! with what each is, so that its answer is known for what it is (a
//! tool's result, a page of tools/list) whatever the order of the
//! answer's members; and whether the server is gone, so that a request
//! that comes after is answered at once.

use std::collections::HashMap;

/// What a request is, as far as its answer goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `tools/call`: bounded by the profile of this index in
    /// [`Caps`](super::caps::Caps), or left as it is (`None`); and
    /// `tasks/result`, whose result is a tool's, bounded by the default.
    Tool(Option<usize>),
    /// `tools/list`; `first` when it asks for the first page (no cursor),
    /// which gets `capout_page`.
    List { first: bool },
    /// `initialize`.
    Init,
    /// A method whose result never holds a tool's content.
    Known,
    /// A method this proxy does not know: its result could look like
    /// anything.
    Unknown,
}

impl Kind {
    /// The kind of a request for `method`; `tool` is the profile of the
    /// tool a `tools/call` names, `first` whether a `tools/list` has no
    /// cursor.
    pub fn of(method: &str, tool: Option<usize>, first: bool) -> Kind {
        match method {
            "tools/call" => Kind::Tool(tool),
            "tasks/result" => Kind::Tool(Some(0)),
            "tools/list" => Kind::List { first },
            "initialize" => Kind::Init,
            "ping"
            | "server/discover"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
            | "logging/setLevel"
            | "tasks/get"
            | "tasks/list"
            | "tasks/cancel" => Kind::Known,
            _ => Kind::Unknown,
        }
    }
}

/// The requests awaiting their answer.
#[derive(Debug, Default)]
pub struct Pending {
    /// By id as [`key`] spells it: the id's raw bytes, and the kind.
    map: HashMap<Vec<u8>, (Vec<u8>, Kind)>,
    /// Why no request reaches the server any more, once it is gone.
    pub gone: Option<Gone>,
    /// The server answered `initialize`.
    pub initialized: bool,
}

/// Why the server cannot be asked, as a JSON-RPC error says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gone {
    pub message: String,
    /// The last lines of the server's stderr, when it wrote any.
    pub stderr: Option<String>,
}

/// The id `raw` (its JSON bytes) as it is looked up: a string by its
/// value (`"a"` and `"\u0061"` are one id), a number by its bytes.
fn key(raw: &[u8]) -> Vec<u8> {
    if raw.first() == Some(&b'"')
        && let Ok(text) = serde_json::from_slice::<String>(raw)
    {
        let mut key = b"s".to_vec();
        key.extend_from_slice(text.as_bytes());
        return key;
    }
    let mut key = b"n".to_vec();
    key.extend_from_slice(raw);
    key
}

/// A number id's value, to match a server that spells it otherwise (a
/// JavaScript server answers `1.0` as `1`).
fn number(raw: &[u8]) -> Option<f64> {
    std::str::from_utf8(raw).ok()?.parse().ok()
}

impl Pending {
    /// Adds a request.
    pub fn insert(&mut self, raw: &[u8], kind: Kind) {
        self.map.insert(key(raw), (raw.to_vec(), kind));
    }

    fn find(&self, raw: &[u8]) -> Option<Vec<u8>> {
        let key = key(raw);
        if self.map.contains_key(&key) {
            return Some(key);
        }
        let value = number(raw)?;
        self.map.iter().find(|(_, (r, _))| number(r) == Some(value)).map(|(k, _)| k.clone())
    }

    /// What the request of id `raw` is.
    pub fn get(&self, raw: &[u8]) -> Option<Kind> {
        self.find(raw).and_then(|key| self.map.get(&key)).map(|(_, kind)| kind.clone())
    }

    /// Takes the request of id `raw` out: it is answered.
    pub fn remove(&mut self, raw: &[u8]) -> Option<Kind> {
        let key = self.find(raw)?;
        self.map.remove(&key).map(|(_, kind)| kind)
    }

    /// Takes every request out, with its raw id: the server is gone.
    pub fn drain(&mut self) -> Vec<Vec<u8>> {
        self.map.drain().map(|(_, (raw, _))| raw).collect()
    }

    /// What an answer whose id has not been read yet may be: the
    /// profiles of the tool calls that wait (each once), whether one of
    /// them is left as it is or a request of an unknown kind waits (then
    /// a tool's content in it may be anything else's), and whether a
    /// `tools/list` waits.
    pub fn possible(&self) -> Possible {
        let mut possible = Possible::default();
        for (_, kind) in self.map.values() {
            match kind {
                Kind::Tool(Some(profile)) => {
                    if !possible.profiles.contains(profile) {
                        possible.profiles.push(*profile);
                    }
                }
                Kind::Tool(None) | Kind::Unknown => possible.uncertain = true,
                Kind::List { .. } => possible.list = true,
                Kind::Init | Kind::Known => {}
            }
        }
        possible
    }
}

/// What an answer whose id is still to come may be ([`Pending::possible`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Possible {
    pub profiles: Vec<usize>,
    pub uncertain: bool,
    pub list: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_found_by_its_value_and_kept_as_it_came() {
        let mut pending = Pending::default();
        pending.insert(b"12345678901234567890123", Kind::Tool(Some(0)));
        pending.insert(br#""a""#, Kind::Known);
        pending.insert(b"1.0", Kind::Init);
        assert_eq!(pending.get(br#""\u0061""#), Some(Kind::Known));
        assert_eq!(pending.get(b"1"), Some(Kind::Init));
        assert_eq!(pending.get(b"a"), None);
        assert_eq!(pending.remove(b"12345678901234567890123"), Some(Kind::Tool(Some(0))));
        assert_eq!(pending.get(b"12345678901234567890123"), None);
        let mut left = pending.drain();
        left.sort();
        assert_eq!(left, [br#""a""#.to_vec(), b"1.0".to_vec()]);
    }

    #[test]
    fn what_an_answer_may_be_is_told_by_what_waits() {
        let mut pending = Pending::default();
        assert_eq!(pending.possible(), Possible::default());
        pending.insert(b"1", Kind::Tool(Some(2)));
        pending.insert(b"2", Kind::Tool(Some(2)));
        pending.insert(b"3", Kind::Known);
        assert_eq!(pending.possible(), Possible { profiles: vec![2], uncertain: false, list: false });
        pending.insert(b"4", Kind::of("x/y", None, true));
        pending.insert(b"5", Kind::of("tools/list", None, true));
        assert_eq!(pending.possible(), Possible { profiles: vec![2], uncertain: true, list: true });
    }
}
