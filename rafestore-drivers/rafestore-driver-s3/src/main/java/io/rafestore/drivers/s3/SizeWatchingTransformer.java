package io.rafestore.drivers.s3;

import io.rafestore.spi.support.CancelledRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Collects a GET's body like {@code toBytes()}, but first tells {@link CancelledRequest} the size
 * the response headers announce: a download cancelled before its headers arrived is then finished
 * if small, or stopped (its body stream cancelled, which closes the connection) if large.
 */
final class SizeWatchingTransformer
    implements AsyncResponseTransformer<GetObjectResponse, ResponseBytes<GetObjectResponse>> {
  private final AsyncResponseTransformer<GetObjectResponse, ResponseBytes<GetObjectResponse>>
      delegate;
  private final CancelledRequest cancel;
  private volatile boolean stop;

  SizeWatchingTransformer(
      AsyncResponseTransformer<GetObjectResponse, ResponseBytes<GetObjectResponse>> delegate,
      CancelledRequest cancel) {
    this.delegate = delegate;
    this.cancel = cancel;
  }

  @Override
  public CompletableFuture<ResponseBytes<GetObjectResponse>> prepare() {
    stop = false; // prepare starts each attempt, retries included
    return delegate.prepare();
  }

  @Override
  public void onResponse(GetObjectResponse response) {
    Long length = response.contentLength();
    stop = !cancel.learned(length == null ? CancelledRequest.UNBOUNDED : length);
    delegate.onResponse(response);
  }

  @Override
  public void onStream(SdkPublisher<ByteBuffer> publisher) {
    if (!stop) {
      delegate.onStream(publisher);
      return;
    }
    // Cancelled and too large to finish: refuse the body (the SDK then drops the connection).
    publisher.subscribe(
        new Subscriber<ByteBuffer>() {
          @Override
          public void onSubscribe(Subscription s) {
            s.cancel();
          }

          @Override
          public void onNext(ByteBuffer b) {}

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onComplete() {}
        });
    delegate.exceptionOccurred(new CancellationException("cancelled; not finishing the body"));
  }

  @Override
  public void exceptionOccurred(Throwable error) {
    delegate.exceptionOccurred(error);
  }
}
