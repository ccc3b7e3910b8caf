package io.rafestore;

import java.util.List;
import java.util.function.Consumer;

/**
 * {@link RafeStoreListener#all}: tells every listener every event, in order. A listener that throws
 * does not keep the event from the ones after it; the first exception is rethrown afterwards (and
 * the client logs it), the others are added to it as suppressed.
 */
final class AllListeners implements RafeStoreListener {
  private final List<RafeStoreListener> listeners;

  AllListeners(List<RafeStoreListener> listeners) {
    this.listeners = listeners;
  }

  private void each(Consumer<RafeStoreListener> call) {
    RuntimeException first = null;
    for (RafeStoreListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void cloudFault(String key, CloudFault fault) {
    each(l -> l.cloudFault(key, fault));
  }

  @Override
  public void writerRejected(String key, WriterTrustException why) {
    each(l -> l.writerRejected(key, why));
  }

  @Override
  public void writeCompleted(WriteReceipt receipt) {
    each(l -> l.writeCompleted(receipt));
  }

  @Override
  public void readCompleted(ReadReceipt receipt) {
    each(l -> l.readCompleted(receipt));
  }

  @Override
  public void phaseCompleted(String key, PhaseTiming phase) {
    each(l -> l.phaseCompleted(key, phase));
  }

  @Override
  public void cloudRequest(CloudRequest request) {
    each(l -> l.cloudRequest(request));
  }

  @Override
  public void operationCompleted(OperationReceipt receipt) {
    each(l -> l.operationCompleted(receipt));
  }

  @Override
  public void scrubEvent(ScrubEvent event) {
    each(l -> l.scrubEvent(event));
  }

  @Override
  public void cacheEvent(CacheEvent event) {
    each(l -> l.cacheEvent(event));
  }
}
