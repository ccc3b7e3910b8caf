package io.rafestore.spi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A driver that forwards every call to another driver: the base of decorators (fault injection, WAN
 * emulation, accounting, renaming), so that a decorator states only what it changes and inherits
 * the rest.
 *
 * <p><b>What is forwarded.</b> Every {@link CloudDriver} method, including the paged {@link
 * #list(String, String, int)}, {@link #close()} and {@link #id()}, goes to {@link #delegate()}
 * unchanged; the delegate's future is returned as it is, so cancelling it reaches the delegate. The
 * exception is conditional gets: {@link #getTagged} and {@link #conditionalGets()} keep the
 * interface's defaults (a plain {@link #get} through this decorator, no tags), so a decorator that
 * changes gets is never bypassed by one. A decorator whose gets are the delegate's, or that applies
 * its behaviour to tagged answers too, overrides both to pass them on. Conditional puts likewise:
 * {@link #putIfMatch} and {@link #conditionalPuts()} keep the defaults (not offered) unless a
 * decorator overrides both, applying to them what it applies to {@link #put}.
 *
 * <p><b>Native multipart uploads.</b> {@link #multipart()} offers the delegate's capability (if it
 * has one) with every call routed through four protected hooks: {@link #beginUpload}, {@link
 * #putPart}, {@link #completeUpload} and {@link #abortUpload}. Each hook is given the call to the
 * delegate, which it may make, delay, make on altered bytes, or replace with its own answer; by
 * default it just makes the call. A decorator that changes puts therefore overrides {@link #put}
 * and the hooks that are puts to it (say, {@code putPart}), and its behaviour reaches every part of
 * an upload: the capability handed out never bypasses the decorator. A decorator that cannot apply
 * its behaviour to uploads overrides {@link #multipart()} to return empty (large values are then
 * stored as part objects, through its {@code put}).
 *
 * <p><b>Fault model.</b> Adds none: answers, errors and lies of the delegate pass through. <b>
 * Thread-safety.</b> As safe as the delegate; subclasses must be safe for concurrent use, as every
 * driver must.
 */
public abstract class ForwardingCloud implements CloudDriver {
  private final CloudDriver delegate;

  /** Forwards to {@code delegate}. */
  protected ForwardingCloud(CloudDriver delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The wrapped driver. */
  protected final CloudDriver delegate() {
    return delegate;
  }

  @Override
  public String id() {
    return delegate.id();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return delegate.put(key, data);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return delegate.get(key, range);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return delegate.delete(key);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    return delegate.list(prefix, startAfter, limit);
  }

  /**
   * The delegate's native multipart upload with this decorator's hooks around every call, or empty
   * if the delegate has none.
   */
  @Override
  public Optional<Multipart> multipart() {
    return delegate.multipart().map(ForwardedMultipart::new);
  }

  /**
   * Around {@link Multipart#begin}: {@code call} begins the upload at the delegate. The upload
   * returned (whether from {@code call} or made up by the decorator) is itself wrapped, so the
   * other hooks see its parts, completion and abort.
   */
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    return call.get();
  }

  /**
   * Around {@link MultipartUpload#putPart}: {@code call} puts the bytes it is given as part {@code
   * index} of the upload of {@code key} (a decorator may pass other bytes, or a copy it keeps).
   */
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    return call.apply(data);
  }

  /** Around {@link MultipartUpload#complete}: {@code call} completes the upload of {@code key}. */
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
    return call.get();
  }

  /** Around {@link MultipartUpload#abort}: {@code call} aborts the upload of {@code key}. */
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> call) {
    return call.get();
  }

  /** Closes the delegate. */
  @Override
  public void close() {
    delegate.close();
  }

  /** The delegate's capability seen through this decorator's hooks; limits are the delegate's. */
  private final class ForwardedMultipart implements Multipart {
    private final Multipart inner;

    ForwardedMultipart(Multipart inner) {
      this.inner = inner;
    }

    @Override
    public long minPartSize() {
      return inner.minPartSize();
    }

    @Override
    public long maxPartSize() {
      return inner.maxPartSize();
    }

    @Override
    public int maxParts() {
      return inner.maxParts();
    }

    @Override
    public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
      Objects.requireNonNull(key, "key");
      return beginUpload(key, () -> inner.begin(key))
          .thenApply(u -> (MultipartUpload) new ForwardedUpload(u));
    }
  }

  private final class ForwardedUpload implements MultipartUpload {
    private final MultipartUpload inner;

    ForwardedUpload(MultipartUpload inner) {
      this.inner = inner;
    }

    @Override
    public ObjectKey key() {
      return inner.key();
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      return ForwardingCloud.this.putPart(
          inner.key(), index, data, bytes -> inner.putPart(index, bytes));
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      return completeUpload(inner.key(), count, () -> inner.complete(count));
    }

    @Override
    public CompletableFuture<Void> abort() {
      return abortUpload(inner.key(), inner::abort);
    }
  }
}
