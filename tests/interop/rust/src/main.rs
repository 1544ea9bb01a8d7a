//! `xlang-rust`: the Rust side of queuey's interop tests.
//!
//!     xlang-rust enqueue --url URL --queue Q --type T --payload JSON [--after-ms N | --defer-ms N] [--correlation-id C]
//!     xlang-rust work --url URL --queue Q --handled N [--timeout-s S] [--shutdown-in-handler 1]
//!     xlang-rust codec FILE [next_attempt | deferred:P]
//!     xlang-rust vectors DIR
//!     xlang-rust rates enqueue|drain URL QUEUE N
//!
//! `enqueue` and `work` follow the shared contract (docs/interop.md); `work
//! --shutdown-in-handler 1` asks for the shutdown from the last handler instead of after
//! its job is settled, to show what the crate's shutdown does then; `codec` decodes a
//! body with the crate's `Envelope::from_bytes`, applies a transition and prints what
//! `Envelope::to_bytes` writes; `vectors` writes the golden bodies of tests/vectors/rust; `rates` is the binding benchmarks' contract
//! (src/rates.rs).

mod args;
mod contract;
mod observed;
mod rates;
mod vectors;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("enqueue") => contract::enqueue(&argv[1..]),
        Some("work") => contract::work(&argv[1..]),
        Some("codec") => vectors::codec(&argv[1..]),
        Some("vectors") => vectors::write_all(&argv[1..]),
        Some("rates") => rates::rates(&argv[1..]),
        _ => Err("usage: xlang-rust enqueue|work|codec|vectors|rates ARGS".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xlang-rust: {message}");
            ExitCode::FAILURE
        }
    }
}
