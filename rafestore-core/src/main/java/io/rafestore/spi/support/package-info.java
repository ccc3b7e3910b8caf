/**
 * Helpers for writing a {@link io.rafestore.spi.CloudDriver}: what every driver over an HTTP or
 * blocking SDK needs and would otherwise copy. Part of the driver SPI, and as stable as it: {@link
 * io.rafestore.spi.support.Futures} (cancellation that reaches the request, unwrapping), {@link
 * io.rafestore.spi.support.HttpKinds} (an HTTP status to a {@link
 * io.rafestore.spi.CloudException.Kind}), {@link io.rafestore.spi.support.CancelledRequest} (abort
 * a cancelled request or let a small one finish) and {@link io.rafestore.spi.support.BlockingCalls}
 * (a blocking SDK call on a bounded pool, as a future). RafeStore's own decorators and drivers use
 * them; nothing here depends on RafeStore's internals.
 */
package io.rafestore.spi.support;
