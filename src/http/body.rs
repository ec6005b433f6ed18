//! A response body: one reference-counted buffer, and what it holds while
//! the connection sends it — the request's slot under `web.max_requests`
//! and the connection's note that a response is being sent (the send
//! timeout, `limits`). hyper drops the body once it has handed the last
//! byte to the connection (for HTTP/2, once the peer's flow-control window
//! took it), or when the stream or connection goes: that is when both are
//! released.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use tokio::sync::OwnedSemaphorePermit;

use super::limits::Sending;

pub(crate) struct Body {
    data: Option<Bytes>,
    permit: Option<OwnedSemaphorePermit>,
    sending: Option<Sending>,
}

impl Body {
    pub(crate) fn new(data: impl Into<Bytes>) -> Self {
        let data: Bytes = data.into();
        Body {
            data: Some(data).filter(|d| !d.is_empty()),
            permit: None,
            sending: None,
        }
    }

    /// Holds a slot of the request cap until the body is gone.
    pub(crate) fn holding(mut self, permit: Option<OwnedSemaphorePermit>) -> Self {
        self.permit = permit;
        self
    }

    /// Whether it holds a slot of the request cap.
    pub(crate) fn holds_slot(&self) -> bool {
        self.permit.is_some()
    }

    /// Counts as a response being sent on its connection until gone.
    pub(crate) fn sending(mut self, sending: Sending) -> Self {
        self.sending = Some(sending);
        self
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.get_mut().data.take().map(|d| Ok(Frame::data(d))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |d| d.len() as u64))
    }
}
