package io.rafestore.config;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A driver whose SDK client is still being built, on another thread: usable at once, it holds each
 * request until the build completes and then hands it to the built driver. {@link StoreConfig#open}
 * returns a client over these, so a command sends its first requests to the clouds whose clients
 * are ready while the others are still being built, and a read that needs n-f replies completes
 * without waiting for the slowest SDK.
 *
 * <p>If the build fails, every request held and every later one fails with a {@link CloudException}
 * naming this cloud, whose cause is the build's failure (a {@link ConfigException} naming the
 * configuration's line and field when the driver rejected a setting): {@link
 * CloudException.Kind#UNAUTHORIZED} when the field is the credentials, {@link
 * CloudException.Kind#OTHER} otherwise; neither is retryable, so the protocol treats the cloud as
 * faulty, as it would a cloud that refuses every request.
 *
 * <p>{@link #close()} never waits for a build: it closes the built driver if there is one, and
 * otherwise marks this driver closed so the build's thread closes the driver it builds at once (and
 * a build not yet started does not start). Requests held at close fail with {@link
 * CloudException.Kind#CANCELLED}. Cancelling a request's future before the build completes drops
 * the request; after, cancels the built driver's request.
 *
 * <p>{@link #multipart()} is the one call that cannot be answered without the built driver (whether
 * a cloud offers native multipart uploads depends on its type and settings): it waits for the
 * build. Only large values and deletes ask, after their first requests; a failed build or an
 * interrupt answers empty (part objects), the interrupt flag restored.
 *
 * <p>Conditional gets ({@link #getTagged}) are held and handed on like every request. {@link
 * #conditionalGets()} is the built driver's answer once there is one, and false until then: it
 * never waits for the build, because readM asks it for every metadata get, so a read sent before
 * the build completes asks plain gets, as it would of a driver without tags, and later reads ask
 * conditionally. (With no tag remembered yet, a first read could not have saved anything.)
 *
 * <p>Conditional puts ({@link #putIfMatch}) likewise: held and handed on like every request, and
 * {@link #conditionalPuts()} is the built driver's answer once there is one, false until then
 * (without waiting), so a caller that asks before the build completes does not ask for them.
 *
 * <p>Thread-safe.
 */
final class DeferredDriver implements CloudDriver {
  private final String id;
  private final CompletableFuture<CloudDriver> built;
  private final AtomicBoolean closed = new AtomicBoolean();
  // Completed by close(): requests still waiting for the build fail at once instead.
  private final CompletableFuture<Void> closing = new CompletableFuture<>();

  /**
   * @param id the cloud's id, as the built driver will report it
   * @param built completes with the built driver, or exceptionally with why it could not be built
   */
  DeferredDriver(String id, CompletableFuture<CloudDriver> built) {
    this.id = Objects.requireNonNull(id, "id");
    this.built = Objects.requireNonNull(built, "built");
    // A driver built after close() is closed by the thread that built it.
    built.thenAccept(
        d -> {
          if (closed.get()) {
            closeQuietly(d);
          }
        });
  }

  /** Whether the build has been asked to be skipped (this driver was closed before it started). */
  boolean closed() {
    return closed.get();
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return whenBuilt(d -> d.put(key, data));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return whenBuilt(d -> d.get(key, range));
  }

  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    return whenBuilt(d -> d.getTagged(key, range, ifNoneMatch));
  }

  @Override
  public boolean conditionalGets() {
    CloudDriver d = built.isDone() && !built.isCompletedExceptionally() ? built.join() : null;
    return d != null && d.conditionalGets();
  }

  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return whenBuilt(d -> d.putIfMatch(key, data, ifMatch));
  }

  @Override
  public boolean conditionalPuts() {
    CloudDriver d = built.isDone() && !built.isCompletedExceptionally() ? built.join() : null;
    return d != null && d.conditionalPuts();
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return whenBuilt(d -> d.delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return whenBuilt(d -> d.list(prefix));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit); // thrown here, as the contract says
    return whenBuilt(d -> d.list(prefix, startAfter, limit));
  }

  @Override
  public Optional<Multipart> multipart() {
    try {
      return built.get().multipart();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException | CancellationException e) {
      return Optional.empty();
    }
  }

  /**
   * The built driver's request, once there is a built driver. The returned future is this class's
   * own, so cancelling it before the build completes only drops the request.
   */
  private <T> CompletableFuture<T> whenBuilt(Function<CloudDriver, CompletableFuture<T>> request) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Futures.onEnd(
        built,
        (d, buildFailure) -> {
          if (result.isDone()) {
            return; // cancelled, or failed at close
          }
          if (buildFailure != null) {
            result.completeExceptionally(creationFailed(buildFailure));
            return;
          }
          CompletableFuture<T> sent;
          try {
            sent = request.apply(d);
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
          }
          Futures.onEnd(
              sent,
              (value, failure) -> {
                if (failure != null) {
                  result.completeExceptionally(unwrap(failure));
                } else {
                  result.complete(value);
                }
              });
          Futures.onEnd(
              result,
              (value, failure) -> {
                if (result.isCancelled()) {
                  sent.cancel(true);
                }
              });
        });
    if (!built.isDone()) {
      Futures.onEnd(
          closing,
          (v, e) ->
              result.completeExceptionally(
                  new CloudException(
                      id,
                      CloudException.Kind.CANCELLED,
                      "the driver was closed while its client was being built")));
    }
    return result;
  }

  private CloudException creationFailed(Throwable failure) {
    Throwable cause = unwrap(failure);
    CloudException.Kind kind =
        cause instanceof ConfigException c
                && c.field().filter(f -> f.endsWith(".credentials")).isPresent()
            ? CloudException.Kind.UNAUTHORIZED
            : CloudException.Kind.OTHER;
    String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
    // A new exception per request: one instance shared by many futures would collect every
    // caller's suppressed exceptions.
    return new CloudException(id, kind, "its driver could not be created: " + why, cause);
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closing.complete(null);
    if (built.isDone() && !built.isCompletedExceptionally()) {
      built.join().close();
    }
    // Otherwise the build's thread closes it (constructor), or the build never starts (closed()).
    // A driver being built is not waited for: a command's exit must not wait for an SDK it no
    // longer needs.
  }

  private static void closeQuietly(CloudDriver d) {
    try {
      d.close();
    } catch (RuntimeException ignored) {
      // Nobody is left to tell: the driver was closed before it was built.
    }
  }

  @Override
  public String toString() {
    return "DeferredDriver[" + id + (built.isDone() ? ", built" : ", building") + "]";
  }
}
