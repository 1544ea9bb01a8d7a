//! `enqueue` and `work` of the cross-implementation contract, through the crate's own
//! `Producer`, `Worker` and `RabbitMqBackend` with their defaults.

use std::{
    future::Future,
    io::Write,
    marker::PhantomData,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, OnceLock,
    },
    time::Duration,
};

use queuey::prelude::*;
use queuey::Envelope;
use serde_json::{json, Value};
use tokio::time::{timeout_at, Instant};

use crate::{args::Args, observed::Observed};

/// The crate's queues are static (`QueueSet::name` returns `&'static str`); the contract
/// names the queue at run time, so the one queue of this set takes its name from here.
static QUEUE_NAME: OnceLock<&'static str> = OnceLock::new();

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum XQueues {
    Main,
}

impl QueueSet for XQueues {
    fn all() -> &'static [Self] {
        &[XQueues::Main]
    }
    fn name(&self) -> &'static str {
        QUEUE_NAME
            .get()
            .expect("the queue name is set before any queue is used")
    }
    fn config(&self) -> QueueConfig {
        QueueConfig::new(self.name()) // the crate's defaults, as the contract asks
    }
}

pub(crate) fn set_queue(name: &str) -> Result<(), String> {
    QUEUE_NAME
        .set(Box::leak(name.to_owned().into_boxed_str()))
        .map_err(|_| "the queue name was set twice".to_owned())
}

/// A job of the contract: its payload is any JSON value, passed through as it decodes.
trait XJob: Job<Queue = XQueues> {
    fn wrap(payload: Value) -> Self;
    fn payload(&self) -> &Value;
}

/// `Job::NAME` is a constant, so each job type of the contract is a type of its own.
macro_rules! xjob {
    ($($ty:ident = $name:literal),* $(,)?) => {
        $(
            #[derive(Serialize, Deserialize)]
            #[serde(transparent)]
            struct $ty(Value);
            impl Job for $ty {
                type Queue = XQueues;
                const NAME: &'static str = $name;
                const QUEUE: XQueues = XQueues::Main;
            }
            impl XJob for $ty {
                fn wrap(payload: Value) -> Self { Self(payload) }
                fn payload(&self) -> &Value { &self.0 }
            }
        )*
        /// Enqueues through the typed producer when `job_type` is one of the contract's.
        async fn enqueue_known(
            producer: &Producer<XQueues, RabbitMqBackend>,
            job_type: &str,
            payload: Value,
            options: EnqueueOptions,
        ) -> Option<queuey::Result<uuid::Uuid>> {
            match job_type {
                $($name => Some(producer.enqueue_with(&$ty::wrap(payload), options).await),)*
                _ => None,
            }
        }
        const CONTRACT_TYPES: &[&str] = &[$($name),*];
        fn with_handlers(
            builder: WorkerBuilder<XQueues, Observed<RabbitMqBackend>>,
            state: &Arc<State>,
        ) -> WorkerBuilder<XQueues, Observed<RabbitMqBackend>> {
            builder$(.handler(Contract::<$ty>::new(state.clone())))*
        }
    };
}

xjob!(
    OkJob = "ok",
    RetryOnceJob = "retry-once",
    AlwaysRetryJob = "always-retry",
    FatalJob = "fatal",
    DeferOnceJob = "defer-once",
);

/// Runs `job` on a fresh runtime, then shuts the runtime down without waiting on
/// anything left behind: dropping it would wait, without a bound, for every blocking
/// task the crates started, and the test harness would see a hang instead of an exit.
pub(crate) fn block_on<T>(job: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let result = runtime.block_on(job);
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN_GRACE);
    result
}

const RUNTIME_SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// How long a command waits for the crate's `close` once its work is done.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Closes `backend` once the command's work is done (the job enqueued, every job
/// settled): a close that does not finish is reported, not turned into a failure.
pub(crate) async fn close_within_grace(backend: &RabbitMqBackend) -> Result<(), String> {
    match tokio::time::timeout(CLOSE_GRACE, backend.close()).await {
        Ok(closed) => closed.map_err(|e| e.to_string()),
        Err(_) => {
            eprintln!(
                "xlang-rust: the backend's close did not finish in {} s; its work was done",
                CLOSE_GRACE.as_secs()
            );
            Ok(())
        }
    }
}

/// When `enqueue` publishes: the contract's `--after-ms` / `--defer-ms`.
#[derive(Clone, Copy)]
enum Schedule {
    Now,
    After(Duration),
    Deferred(Duration),
}

impl Schedule {
    fn parse(args: &Args) -> Result<Self, String> {
        match (
            args.number("after-ms", None)?,
            args.number("defer-ms", None)?,
        ) {
            (Some(_), Some(_)) => Err("--after-ms and --defer-ms exclude each other".into()),
            (Some(ms), None) => Ok(Self::After(Duration::from_millis(ms))),
            (None, Some(ms)) => Ok(Self::Deferred(Duration::from_millis(ms))),
            (None, None) => Ok(Self::Now),
        }
    }

    fn options(self, correlation_id: Option<&str>) -> EnqueueOptions {
        let options = match self {
            Self::Now => EnqueueOptions::now(),
            Self::After(delay) => EnqueueOptions::after(delay),
            Self::Deferred(delay) => EnqueueOptions::deferred(delay),
        };
        match correlation_id {
            Some(id) => options.correlation_id(id),
            None => options,
        }
    }
}

pub fn enqueue(argv: &[String]) -> Result<(), String> {
    let args = Args::parse(
        argv,
        &[
            "url",
            "queue",
            "type",
            "payload",
            "after-ms",
            "defer-ms",
            "correlation-id",
        ],
    )?;
    set_queue(args.required("queue")?)?;
    let job_type = args.required("type")?;
    let payload: Value = serde_json::from_str(args.required("payload")?)
        .map_err(|e| format!("--payload is not JSON: {e}"))?;
    let schedule = Schedule::parse(&args)?;
    let correlation_id = args.get("correlation-id");
    let url = args.required("url")?;

    block_on(async move {
        let (backend, producer) = connect_producer(url).await?;
        let options = schedule.options(correlation_id);
        let id = match enqueue_known(&producer, job_type, payload.clone(), options).await {
            Some(result) => result,
            None => enqueue_raw(&backend, job_type, payload, correlation_id, schedule).await,
        }
        .map_err(|e| e.to_string())?;
        println!("{id}");
        close_within_grace(&backend).await
    })
}

/// A connection to the broker at `url` and a producer of the contract's queue on it.
pub(crate) async fn connect_producer(
    url: &str,
) -> Result<(Arc<RabbitMqBackend>, Producer<XQueues, RabbitMqBackend>), String> {
    let backend = Arc::new(
        RabbitMqBackend::connect(url)
            .await
            .map_err(|e| e.to_string())?,
    );
    let producer = Producer::<XQueues, _>::new(backend.clone())
        .await
        .map_err(|e| e.to_string())?;
    Ok((backend, producer))
}

/// A job type no Rust type carries (the contract's "any other type") can only go
/// through the `Backend` the producer publishes with, as `Producer::enqueue_with` does.
async fn enqueue_raw(
    backend: &RabbitMqBackend,
    job_type: &str,
    payload: Value,
    correlation_id: Option<&str>,
    schedule: Schedule,
) -> queuey::Result<uuid::Uuid> {
    let mut env = Envelope::raw(job_type, XQueues::Main.name(), payload);
    env.correlation_id = correlation_id.map(str::to_owned);
    match schedule {
        Schedule::Now => backend.publish(&env, None).await?,
        Schedule::After(delay) => backend.publish(&env, Some(delay)).await?,
        Schedule::Deferred(delay) => {
            env.priority = XQueues::Main.config().max_priority.unwrap_or(0);
            backend.defer(&env, delay).await?
        }
    }
    Ok(env.job_id)
}

/// What the handlers share: how many invocations to run before shutting down.
struct State {
    wanted: u64,
    handled: AtomicU64,
    settled: AtomicU64,
    /// Shut down from the last handler, with its job still to settle (`--shutdown-in-handler`).
    shutdown_in_handler: bool,
    handle: OnceLock<WorkerHandle>,
}

impl State {
    /// Prints the invocation's line.
    fn report(&self, ctx: &JobContext, payload: &Value, outcome: &str) {
        let line = json!({
            "impl": "rust", "job_id": ctx.job_id.to_string(), "job_type": ctx.job_type,
            "attempt": ctx.attempt, "deferrals": ctx.deferrals, "priority": ctx.priority,
            "payload": payload, "outcome": outcome,
        });
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        let handled = self.handled.fetch_add(1, Ordering::SeqCst) + 1;
        if self.shutdown_in_handler && handled == self.wanted {
            self.shutdown();
        }
    }

    /// Counts a settled delivery of a contract job type (each had one invocation).
    fn settled(&self, envelope: &Envelope) {
        let invoked = CONTRACT_TYPES.contains(&envelope.job_type.as_str());
        if invoked && self.settled.fetch_add(1, Ordering::SeqCst) + 1 == self.wanted {
            self.shutdown();
        }
    }

    fn shutdown(&self) {
        if let Some(handle) = self.handle.get() {
            handle.shutdown();
        }
    }
}

struct Contract<J> {
    state: Arc<State>,
    _job: PhantomData<fn() -> J>,
}

impl<J> Contract<J> {
    fn new(state: Arc<State>) -> Self {
        Self {
            state,
            _job: PhantomData,
        }
    }
}

#[async_trait]
impl<J: XJob> JobHandler for Contract<J> {
    type Job = J;

    async fn handle(&self, job: J, ctx: JobContext) -> Result<(), JobError> {
        let (outcome, result) = match J::NAME {
            "retry-once" if ctx.attempt == 1 => {
                ("retry", Err(JobError::retryable_msg("xlang retry")))
            }
            "always-retry" => ("retry", Err(JobError::retryable_msg("xlang retry"))),
            "fatal" => ("fatal", Err(JobError::fatal_msg("xlang fatal"))),
            "defer-once" if ctx.deferrals == 0 => (
                "defer",
                Err(JobError::deferred_msg(
                    Duration::from_millis(1000),
                    "xlang defer",
                )),
            ),
            _ => ("ok", Ok(())),
        };
        self.state.report(&ctx, job.payload(), outcome);
        result
    }
}

pub fn work(argv: &[String]) -> Result<(), String> {
    let args = Args::parse(
        argv,
        &[
            "url",
            "queue",
            "handled",
            "timeout-s",
            "shutdown-in-handler",
        ],
    )?;
    set_queue(args.required("queue")?)?;
    let wanted = args
        .number("handled", None)?
        .ok_or("--handled is required")?;
    let timeout = Duration::from_secs(args.number("timeout-s", Some(60))?.unwrap_or(60));
    let url = args.required("url")?.to_owned();
    let state = Arc::new(State {
        wanted,
        handled: AtomicU64::new(0),
        settled: AtomicU64::new(0),
        shutdown_in_handler: args.number("shutdown-in-handler", Some(0))? == Some(1),
        handle: OnceLock::new(),
    });

    block_on(async move {
        // One deadline for connecting, declaring and running; the stage names the hang.
        let deadline = Instant::now() + timeout;
        let timed_out = |stage: &str| {
            format!(
                "timed out after {} s {stage}, with {} of {wanted} invocations handled and {} settled",
                timeout.as_secs(),
                state.handled.load(Ordering::SeqCst),
                state.settled.load(Ordering::SeqCst)
            )
        };
        let backend = Arc::new(
            timeout_at(deadline, RabbitMqBackend::connect(&url))
                .await
                .map_err(|_| timed_out("connecting"))?
                .map_err(|e| e.to_string())?,
        );
        let observer = state.clone();
        let observed = Observed::new(backend.clone(), Arc::new(move |env| observer.settled(env)));
        let builder = Worker::<XQueues, _>::builder(Arc::new(observed)).retry_override(
            XQueues::Main,
            RetryPolicy::fixed(3, Duration::from_millis(1000)),
        );
        let worker = timeout_at(deadline, with_handlers(builder, &state).build())
            .await
            .map_err(|_| timed_out("declaring the queues"))?
            .map_err(|e| e.to_string())?;
        let handle = worker.handle();
        let _ = state.handle.set(handle.clone());
        if wanted == 0 {
            handle.shutdown();
        }
        timeout_at(deadline, worker.run())
            .await
            .map_err(|_| timed_out("running"))?
            .map_err(|e| e.to_string())?;
        if handle.settle_failures() > 0 {
            eprintln!("xlang-rust: {} settle failures", handle.settle_failures());
        }
        // Every job is settled by now: what the contract asks for is done.
        close_within_grace(&backend).await
    })
}
