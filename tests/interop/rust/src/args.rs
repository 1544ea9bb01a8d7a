//! `--name value` options, each at most once.

use std::collections::HashMap;

pub struct Args(HashMap<String, String>);

impl Args {
    /// Parses `--name value` pairs, refusing names outside `known`.
    pub fn parse(argv: &[String], known: &[&str]) -> Result<Self, String> {
        let mut map = HashMap::new();
        let mut it = argv.iter();
        while let Some(flag) = it.next() {
            let name = flag
                .strip_prefix("--")
                .filter(|n| known.contains(n))
                .ok_or_else(|| format!("unknown argument {flag}"))?;
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            if map.insert(name.to_owned(), value.clone()).is_some() {
                return Err(format!("{flag} given twice"));
            }
        }
        Ok(Self(map))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn required(&self, name: &str) -> Result<&str, String> {
        self.get(name)
            .ok_or_else(|| format!("--{name} is required"))
    }

    /// The number given as `--name`, or `default` when it is absent.
    pub fn number(&self, name: &str, default: Option<u64>) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(default),
            Some(text) => text
                .parse()
                .map(Some)
                .map_err(|_| format!("--{name}: not a non-negative integer: {text}")),
        }
    }
}
