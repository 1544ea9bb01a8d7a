//! A `Backend` that reports every settled delivery, around the crate's own backend.
//!
//! The crate's graceful shutdown closes a consumer's channel before the jobs taken from
//! it are settled (their acks then fail and the broker hands them out again), so
//! `work` asks for the shutdown only once the last invocation is settled, which it
//! learns here. The wrapper only observes: every call goes to the inner backend.

use std::{sync::Arc, time::Duration};

use futures::StreamExt;
use queuey::prelude::*;
use queuey::{Delivery, DeliveryStream, Envelope};

pub type OnSettled = Arc<dyn Fn(&Envelope) + Send + Sync>;

pub struct Observed<B> {
    inner: Arc<B>,
    on_settled: OnSettled,
}

impl<B> Observed<B> {
    pub fn new(inner: Arc<B>, on_settled: OnSettled) -> Self {
        Self { inner, on_settled }
    }
}

#[async_trait]
impl<B: Backend> Backend for Observed<B> {
    async fn declare(&self, queues: &[QueueConfig]) -> queuey::Result<()> {
        self.inner.declare(queues).await
    }

    async fn publish(&self, envelope: &Envelope, delay: Option<Duration>) -> queuey::Result<()> {
        self.inner.publish(envelope, delay).await
    }

    async fn defer(&self, envelope: &Envelope, delay: Duration) -> queuey::Result<()> {
        self.inner.defer(envelope, delay).await
    }

    async fn consume(&self, queue: &QueueConfig) -> queuey::Result<DeliveryStream> {
        let on_settled = self.on_settled.clone();
        let stream = self.inner.consume(queue).await?;
        Ok(Box::pin(stream.map(move |item| {
            item.map(|inner| {
                Box::new(ObservedDelivery {
                    inner,
                    on_settled: on_settled.clone(),
                }) as Box<dyn Delivery>
            })
        })))
    }

    async fn close(&self) -> queuey::Result<()> {
        self.inner.close().await
    }
}

struct ObservedDelivery {
    inner: Box<dyn Delivery>,
    on_settled: OnSettled,
}

impl ObservedDelivery {
    /// The inner delivery, and a closure to call with the settle's result.
    fn split(
        self: Box<Self>,
    ) -> (
        Box<dyn Delivery>,
        impl FnOnce(queuey::Result<()>) -> queuey::Result<()>,
    ) {
        let envelope = self.inner.envelope().clone();
        let on_settled = self.on_settled;
        (self.inner, move |result| {
            on_settled(&envelope);
            result
        })
    }
}

#[async_trait]
impl Delivery for ObservedDelivery {
    fn envelope(&self) -> &Envelope {
        self.inner.envelope()
    }

    async fn ack(self: Box<Self>) -> queuey::Result<()> {
        let (inner, done) = self.split();
        done(inner.ack().await)
    }

    async fn dead_letter(self: Box<Self>, reason: &str) -> queuey::Result<()> {
        let (inner, done) = self.split();
        done(inner.dead_letter(reason).await)
    }

    async fn retry(self: Box<Self>, next: Envelope, delay: Duration) -> queuey::Result<()> {
        let (inner, done) = self.split();
        done(inner.retry(next, delay).await)
    }

    async fn defer(self: Box<Self>, next: Envelope, delay: Duration) -> queuey::Result<()> {
        let (inner, done) = self.split();
        done(inner.defer(next, delay).await)
    }
}
