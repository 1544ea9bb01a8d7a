//! `rates`: the Rust crates on the binding benchmarks' contract (bench/bindings/c_rates.c),
//! so that `bench/bindings/run` measures them next to queuey's C API.
//!
//!     xlang-rust rates enqueue URL QUEUE N   N "noop" jobs, one confirmed enqueue at a time
//!     xlang-rust rates drain URL QUEUE N     N preloaded (untimed), then a worker with
//!                                            concurrency 1 and a no-op handler, timed
//!
//! Each prints `rate WORKLOAD JOBS_PER_S`. The queue is declared with the crate's defaults.

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, OnceLock,
    },
    time::Instant,
};

use queuey::prelude::*;
use serde_json::{json, Value};

use crate::contract::{block_on, connect_producer, set_queue, XQueues};

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Noop(Value);

impl Job for Noop {
    type Queue = XQueues;
    const NAME: &'static str = "noop";
    const QUEUE: XQueues = XQueues::Main;
}

/// Counts the jobs it ran and shuts the worker down at the last one, as c_rates does.
struct Drain {
    wanted: u64,
    ran: AtomicU64,
    handle: OnceLock<WorkerHandle>,
}

/// The worker's handler: the orphan rule keeps `JobHandler` off `Arc<Drain>` itself.
struct DrainHandler(Arc<Drain>);

#[async_trait]
impl JobHandler for DrainHandler {
    type Job = Noop;

    async fn handle(&self, _job: Noop, _ctx: JobContext) -> Result<(), JobError> {
        let drain = &self.0;
        if drain.ran.fetch_add(1, Ordering::SeqCst) + 1 == drain.wanted {
            if let Some(handle) = drain.handle.get() {
                handle.shutdown();
            }
        }
        Ok(())
    }
}

/// Enqueues jobs `from..to`, each confirmed before the next.
async fn enqueue_each(
    producer: &Producer<XQueues, RabbitMqBackend>,
    from: u64,
    to: u64,
) -> Result<(), String> {
    for n in from..to {
        producer
            .enqueue(&Noop(json!({ "n": n })))
            .await
            .map_err(|e| format!("enqueue: {e}"))?;
    }
    Ok(())
}

pub fn rates(argv: &[String]) -> Result<(), String> {
    let [workload, url, queue, jobs] = argv else {
        return Err("usage: xlang-rust rates enqueue|drain URL QUEUE N".to_owned());
    };
    let jobs: u64 = jobs
        .parse()
        .map_err(|_| format!("N: not a number: {jobs}"))?;
    set_queue(queue)?;
    block_on(async move {
        let (backend, producer) = connect_producer(url).await?;
        let seconds = match workload.as_str() {
            "enqueue" => {
                let started = Instant::now();
                enqueue_each(&producer, 0, jobs).await?;
                started.elapsed().as_secs_f64()
            }
            "drain" => {
                // The preload is untimed; 8 producers in parallel keep it short.
                let chunk = jobs.div_ceil(8);
                let preloads = (0..8).map(|i| {
                    enqueue_each(
                        &producer,
                        (i * chunk).min(jobs),
                        ((i + 1) * chunk).min(jobs),
                    )
                });
                for result in futures::future::join_all(preloads).await {
                    result?;
                }
                let drain = Arc::new(Drain {
                    wanted: jobs,
                    ran: AtomicU64::new(0),
                    handle: OnceLock::new(),
                });
                let worker = Worker::<XQueues, _>::builder(backend.clone())
                    .concurrency(1)
                    .handler(DrainHandler(drain.clone()))
                    .build()
                    .await
                    .map_err(|e| e.to_string())?;
                let _ = drain.handle.set(worker.handle());
                let started = Instant::now();
                worker.run().await.map_err(|e| e.to_string())?;
                started.elapsed().as_secs_f64()
            }
            other => return Err(format!("unknown workload {other}: enqueue or drain")),
        };
        println!("rate {workload} {:.1}", jobs as f64 / seconds);
        backend.close().await.map_err(|e| e.to_string())
    })
}
