//! Bodies as the crate's own serializer writes them (`Envelope::to_bytes`), and the
//! crate's decoder (`Envelope::from_bytes`) applied to bodies written elsewhere.

use std::{fmt::Write as _, io::Write as _, path::Path};

use queuey::Envelope;
use serde_json::{json, Value};

/// `codec FILE [TRANSITION]`: decode FILE, apply TRANSITION (`next_attempt` or
/// `deferred:P`), print the re-encoded body without a newline. A body the crate
/// refuses is an error (exit 1) that carries serde's message.
pub fn codec(argv: &[String]) -> Result<(), String> {
    let (file, transition) = match argv {
        [file] => (file, None),
        [file, transition] => (file, Some(transition.as_str())),
        _ => return Err("usage: xlang-rust codec FILE [next_attempt | deferred:P]".into()),
    };
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let env = Envelope::from_bytes(&bytes).map_err(|e| format!("decode: {e}"))?;
    let env = apply(&env, transition)?;
    let body = env.to_bytes().map_err(|e| format!("encode: {e}"))?;
    let mut out = std::io::stdout().lock();
    out.write_all(&body)
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())
}

fn apply(env: &Envelope, transition: Option<&str>) -> Result<Envelope, String> {
    match transition {
        None => Ok(env.clone()),
        Some("next_attempt") => Ok(env.next_attempt()),
        Some(other) => other
            .strip_prefix("deferred:")
            .and_then(|p| p.parse().ok())
            .map(|p| env.deferred(p))
            .ok_or_else(|| format!("unknown transition {other}")),
    }
}

/// The documentation's example envelope, with fixed id and time so the bytes are stable.
fn seed() -> Envelope {
    let mut env = Envelope::raw(
        "myapp::jobs::SendEmail",
        "myapp.emails",
        json!({ "to": "a@b.c", "body": "hi" }),
    );
    env.job_id = "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44"
        .parse()
        .expect("a valid UUID");
    env.attempt = 2;
    env.enqueued_at_ms = 1_757_846_400_123;
    env
}

fn with_payload(payload: Value) -> Envelope {
    let mut env = seed();
    env.payload = payload;
    env
}

/// (name, envelope) of every golden body; names match tests/vectors conventions.
fn bodies() -> Vec<(&'static str, Envelope)> {
    let mut strings = seed();
    strings.job_type = "quote\" backslash\\ nl\n tab\t ctl\u{1}\u{1f} del\u{7f} slash/ é 😀".into();
    strings.queue = "queue.ünïcode".into();
    let mut max = seed();
    max.attempt = u32::MAX;
    max.deferrals = u32::MAX;
    max.priority = u8::MAX;
    max.enqueued_at_ms = u64::MAX;
    vec![
        ("seed", seed()),
        (
            "correlation_id",
            seed().with_correlation_id("req-42 \"quoted\""),
        ),
        ("next_attempt", seed().next_attempt()),
        ("deferred_10", seed().deferred(10)),
        ("deferred_then_retried", seed().deferred(10).next_attempt()),
        ("strings", strings),
        ("max_counters", max),
        (
            "numbers",
            with_payload(json!({
                "u64_max": u64::MAX, "i64_min": i64::MIN, "zero": 0, "tenth": 0.1,
                "integral_float": 1.0, "huge": 1e300, "tiny": 1.5e-7, "negative_zero": -0.0,
            })),
        ),
        (
            "nested",
            with_payload(json!({
                "z": [1, "two", null, true, false, {}, []], "a": { "y": { "b": "deep" } },
            })),
        ),
        ("scalar_payload", with_payload(json!("just a string"))),
    ]
}

/// Rows of transitions.tsv: what the crate's transitions turn `seed` into.
const TRANSITIONS: &[(&str, &str, &str)] = &[
    ("next_attempt", "next_attempt", "next_attempt"),
    ("deferred_10", "deferred:10", "deferred_10"),
];

/// `vectors DIR`: write every golden body (no trailing newline) and transitions.tsv.
pub fn write_all(argv: &[String]) -> Result<(), String> {
    let [dir] = argv else {
        return Err("usage: xlang-rust vectors DIR".into());
    };
    let dir = Path::new(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, env) in bodies() {
        let body = env.to_bytes().map_err(|e| format!("{name}: {e}"))?;
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, body).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut tsv = String::from("name\tinput\ttransition\texpected\n");
    for (name, transition, expected) in TRANSITIONS {
        let _ = writeln!(tsv, "seed_{name}\tseed.json\t{transition}\t{expected}.json");
    }
    let path = dir.join("transitions.tsv");
    std::fs::write(&path, tsv).map_err(|e| format!("{}: {e}", path.display()))
}
