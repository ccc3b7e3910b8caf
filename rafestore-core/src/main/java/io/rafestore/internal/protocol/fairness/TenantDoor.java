package io.rafestore.internal.protocol.fairness;

import io.rafestore.internal.cloud.RequestTenant;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The door through which one tenant's requests reach one cloud: above the accounting and the
 * latency measurement (so the latency model never counts time spent queued), it starts each request
 * as the tenant's ({@link RequestTenant}, so the accounting stamps the tenant on its {@link
 * io.rafestore.CloudRequest}) and, with a queue (fairness on), only when the cloud's {@link
 * FairQueue} dispatches it. Without a queue (fairness off, a tenant's view) it only tags.
 *
 * <p>Puts, gets, deletes, listings and every call of a native multipart upload go through the
 * queue. A put costs its bytes; a get of a data object ({@code d/...}) with a range costs the
 * range's length; any other get (a metadata log, a certificate, a whole object: its range only a
 * cap) is of unknown size, estimated by the queue from the tenant's recent gets.
 */
public final class TenantDoor extends ForwardingCloud {
  private final FairQueue queue;
  private final String tenant;
  private final CloudDriver below;

  private TenantDoor(CloudDriver below, FairQueue queue, String tenant) {
    super(below);
    this.below = below;
    this.queue = queue;
    this.tenant = tenant;
  }

  /** {@code tenant}'s door to {@code measured} through the cloud's fair queue. */
  public static TenantDoor of(CloudDriver measured, Tenancy tenancy, String tenant) {
    return new TenantDoor(measured, tenancy.queue(measured.id()), tenant);
  }

  /**
   * The door of {@code tenant} to the cloud {@code driver} leads to: the same queue if {@code
   * driver} is a door, else a door that only tags (fairness off).
   */
  public static CloudDriver forTenant(CloudDriver driver, String tenant) {
    if (driver instanceof TenantDoor d) {
      return d.tenant.equals(tenant) ? d : new TenantDoor(d.below, d.queue, tenant);
    }
    return new TenantDoor(driver, null, tenant);
  }

  /** The tenant this door lets through. */
  public String tenant() {
    return tenant;
  }

  /** Whether this door queues (fairness on) or only tags. */
  public boolean queues() {
    return queue != null;
  }

  private <T> CompletableFuture<T> enter(
      long bytes,
      long cap,
      Supplier<CompletableFuture<T>> call,
      java.util.function.ToLongFunction<T> actual) {
    return enter(bytes, cap, false, call, actual);
  }

  private <T> CompletableFuture<T> enter(
      long bytes,
      long cap,
      boolean data,
      Supplier<CompletableFuture<T>> call,
      java.util.function.ToLongFunction<T> actual) {
    Supplier<CompletableFuture<T>> tagged = () -> RequestTenant.as(tenant, call);
    if (queue == null) {
      return tagged.get();
    }
    return queue.submit(tenant, bytes, cap, data, tagged, actual);
  }

  private static <T> long none(T r) {
    return 0;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return enter(data.length, data.length, () -> below.put(key, data), TenantDoor::none);
  }

  @Override
  public boolean conditionalPuts() {
    return below.conditionalPuts();
  }

  /** A conditional put enters as a put of its bytes. */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return enter(
        data.length, data.length, () -> below.putIfMatch(key, data, ifMatch), TenantDoor::none);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    boolean data = key.value().startsWith("d/");
    boolean exact = range.isPresent() && data;
    long cap = range.map(ByteRange::length).orElse(Long.MAX_VALUE);
    return enter(exact ? cap : -1, cap, data, () -> below.get(key, range), b -> b.length);
  }

  @Override
  public boolean conditionalGets() {
    return below.conditionalGets();
  }

  /**
   * A conditional get (of a metadata log) enters as a get of unknown size, capped by its range as a
   * plain get is.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    boolean data = key.value().startsWith("d/");
    long cap = range.map(ByteRange::length).orElse(Long.MAX_VALUE);
    return enter(-1, cap, data, () -> below.getTagged(key, range, ifNoneMatch), TaggedGet::bytes);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return enter(0, 0, () -> below.delete(key), TenantDoor::none);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return enter(0, 0, () -> below.list(prefix), TenantDoor::none);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    return enter(0, 0, () -> below.list(prefix, startAfter, limit), TenantDoor::none);
  }

  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    return enter(0, 0, call, TenantDoor::none);
  }

  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    return enter(data.length, data.length, () -> call.apply(data), TenantDoor::none);
  }

  @Override
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
    return enter(0, 0, call, TenantDoor::none);
  }

  @Override
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> call) {
    return enter(0, 0, call, TenantDoor::none);
  }

  /** A door closes nothing: the client closes the raw drivers it owns. */
  @Override
  public void close() {}
}
