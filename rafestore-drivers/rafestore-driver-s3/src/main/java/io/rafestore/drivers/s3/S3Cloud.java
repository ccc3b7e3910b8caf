package io.rafestore.drivers.s3;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.DriverBuilder;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.BlockingCalls;
import io.rafestore.spi.support.CancelledRequest;
import io.rafestore.spi.support.Futures;
import io.rafestore.spi.support.HttpKinds;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.profiles.ProfileFileSystemSetting;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A cloud in an S3 bucket (Amazon S3, MinIO or another S3-compatible store), over the AWS SDK v2
 * {@link S3AsyncClient} on Netty, or, with {@link Transport#APACHE}, its blocking {@link S3Client}
 * on Apache HttpClient run on the driver's own threads.
 *
 * <p>Objects above {@link Builder#multipartThreshold(long)} are uploaded in parts by the SDK's
 * multipart client; S3 makes a completed upload visible whole, so readers never see a partial
 * object. Ranged reads send an HTTP Range header. The SDK retries throttling and server errors a
 * bounded number of times ({@link Builder#maxAttempts(int)}); RafeStore's own retry wraps the
 * driver. Thread-safe.
 *
 * <p>Credentials and region follow the AWS SDK's conventions (see {@link Builder#region(String)},
 * {@link Builder#profile(String)} and {@link Builder#credentials(AwsCredentialsProvider)}): without
 * explicit keys or a profile, the SDK's default credentials chain (system properties, {@code
 * AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}/{@code AWS_SESSION_TOKEN}, web identity, the
 * {@code AWS_PROFILE} profile of {@code ~/.aws/credentials} and {@code ~/.aws/config}, container
 * and instance roles); without a region, the AWS region provider chain.
 *
 * <p>Connections: one Netty pool of at most {@link Builder#maxConnections(int)} connections serves
 * every request (more wait for a free connection), so the driver never holds more; a connection
 * idle for {@link Builder#connectionIdleTimeout(Duration)} is closed. Cancelling a returned future
 * aborts the request if its body is larger than {@link Builder#finishCancelledUpTo(long)} bytes
 * (Netty then closes that connection) and otherwise lets it finish and drops the result, so the
 * connection returns to the pool (see {@link CancelledRequest}). With {@link Transport#APACHE} the
 * pool is Apache HttpClient's, of the same size, and a cancelled request always finishes.
 */
public final class S3Cloud implements CloudDriver {
  /** How long close() waits for the event loop threads to end. */
  private static final long QUIET_SHUTDOWN_TIMEOUT_SECONDS = 5;

  private final String id;
  private final String bucket;
  private final Builder settings;
  private final AwsCredentialsProvider credentials;

  /** {@link Transport#APACHE}: the blocking client below serves puts, reads, lists and deletes. */
  private final boolean apache;

  // APACHE only (null otherwise): the blocking client, its connection pool and the driver's
  // threads that run its requests.
  private final SdkHttpClient syncHttp;
  private final S3Client syncClient;
  private final java.util.concurrent.ExecutorService executor;

  // Netty and the asynchronous clients: built with the driver for NETTY; for APACHE only when a
  // multipart upload first needs them. Written under this object's lock; the first three are
  // read without it (NETTY's requests), hence volatile. The multipart client for uploads is made
  // at the first put that needs it: a command that only reads never builds a second S3 client.
  private volatile SdkEventLoopGroup eventLoops;
  private volatile SdkAsyncHttpClient http;
  private volatile S3AsyncClient client;
  private S3AsyncClientBuilder uploadsBuilder;
  private S3AsyncClient uploads;

  private final S3Multipart multipart;
  private final long finishCancelledUpTo;
  private final Region region;
  // A provider this driver made (from a profile) and so closes; null otherwise.
  private final ProfileCredentialsProvider ownedCredentials;
  private volatile boolean closed;

  // ApacheHttpClient (Apache HttpClient 4) is deprecated in SDK 2.56 in favour of the
  // HttpClient 5 one; it is the one whose classes the GCS driver already loads (docs/design.md).
  @SuppressWarnings("deprecation")
  private S3Cloud(
      Builder b,
      Region region,
      AwsCredentialsProvider credentials,
      ProfileCredentialsProvider ownedCredentials) {
    this.id = b.id();
    this.region = region;
    this.ownedCredentials = ownedCredentials;
    this.bucket = b.bucket;
    this.finishCancelledUpTo = b.finishCancelledUpTo;
    this.settings = b;
    this.credentials = credentials;
    this.apache = b.transport == Transport.APACHE;
    if (apache) {
      this.syncHttp =
          ApacheHttpClient.builder()
              .connectionTimeout(b.connectTimeout())
              .socketTimeout(b.readTimeout())
              .maxConnections(b.maxConnections)
              .connectionMaxIdleTime(b.connectionIdleTimeout)
              .build();
      S3ClientBuilder cb =
          S3Client.builder()
              .region(region)
              .forcePathStyle(b.pathStyle)
              .httpClient(syncHttp)
              .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(b.maxAttempts)));
      if (b.endpoint != null) {
        cb.endpointOverride(b.endpoint);
      }
      if (credentials != null) {
        cb.credentialsProvider(credentials);
      }
      this.syncClient = cb.build();
      this.executor = BlockingCalls.boundedPool("rafestore-s3-" + id, b.maxConnections);
    } else {
      this.syncHttp = null;
      this.syncClient = null;
      this.executor = null;
      buildAsync();
    }
    this.multipart = new S3Multipart(this, this::asyncClient, bucket);
  }

  private S3AsyncClientBuilder configure(
      S3AsyncClientBuilder cb, Builder b, AwsCredentialsProvider credentials) {
    cb.region(region)
        .forcePathStyle(b.pathStyle)
        .httpClient(http)
        .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(b.maxAttempts)));
    if (b.endpoint != null) {
      cb.endpointOverride(b.endpoint);
    }
    if (credentials != null) {
      // Null means the SDK's default chain, which each client then makes and closes itself.
      cb.credentialsProvider(credentials);
    }
    return cb;
  }

  /** Builds Netty and the asynchronous clients unless built. */
  private synchronized void buildAsync() {
    if (client != null) {
      return;
    }
    Builder b = settings;
    this.eventLoops = SdkEventLoopGroup.builder().build();
    this.http =
        NettyNioAsyncHttpClient.builder()
            .eventLoopGroup(eventLoops)
            .connectionTimeout(b.connectTimeout())
            .readTimeout(b.readTimeout())
            .writeTimeout(b.readTimeout())
            .maxConcurrency(b.maxConnections)
            .connectionMaxIdleTime(b.connectionIdleTimeout)
            .build();
    this.client = configure(S3AsyncClient.builder(), b, credentials).build();
    this.uploadsBuilder =
        configure(S3AsyncClient.builder(), b, credentials)
            .multipartEnabled(true)
            .multipartConfiguration(
                m -> m.thresholdInBytes(b.multipartThreshold).minimumPartSizeInBytes(b.partSize));
  }

  /** The asynchronous client (built now if need be), for {@link S3Multipart}. */
  synchronized S3AsyncClient asyncClient() {
    if (closed) {
      throw new java.util.concurrent.CompletionException(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    buildAsync();
    return client;
  }

  /**
   * Runs a blocking SDK call on the driver's threads ({@link Transport#APACHE}) through {@link
   * BlockingCalls}: a call cancelled while queued never starts; one cancelled while running
   * finishes and its result is dropped (as for GCS: interrupting a blocking SDK mid-request can
   * leave a pooled connection in an unknown state).
   */
  private <T> CompletableFuture<T> submit(Supplier<T> work) {
    return BlockingCalls.submit(executor, work::get, t -> t);
  }

  /** {@link #submit} through {@link #call(Supplier, CancelledRequest)}. */
  private <T> CompletableFuture<T> sync(Supplier<T> work, CancelledRequest cancel) {
    return call(() -> submit(work), cancel);
  }

  /** The region requests are signed for and sent to, as chosen when the driver was built. */
  public String region() {
    return region.id();
  }

  /** The transport this driver was built with. */
  public Transport transport() {
    return apache ? Transport.APACHE : Transport.NETTY;
  }

  /** The SDK client's configuration (region, credentials provider), for tests. */
  S3ServiceClientConfiguration clientConfiguration() {
    return apache ? syncClient.serviceClientConfiguration() : client.serviceClientConfiguration();
  }

  private synchronized S3AsyncClient uploads() {
    if (closed) {
      // A put racing close(): no client is made that close() would not close.
      throw new java.util.concurrent.CompletionException(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    if (uploads == null) {
      buildAsync();
      uploads = uploadsBuilder.build();
    }
    return uploads;
  }

  /** Settings for a driver with the given cloud id. */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  @Override
  public String id() {
    return id;
  }

  /** Creates the bucket if it does not exist (for tests and first-time set-up). */
  public CompletableFuture<Void> createBucketIfMissing() {
    if (apache) {
      return sync(
          () -> {
            try {
              syncClient.headBucket(r -> r.bucket(bucket));
            } catch (S3Exception e) {
              syncClient.createBucket(r -> r.bucket(bucket));
            }
            return null;
          },
          new CancelledRequest(finishCancelledUpTo, 0));
    }
    return call(
        () ->
            client
                .headBucket(r -> r.bucket(bucket))
                .<Void>thenApply(h -> null)
                .exceptionallyCompose(
                    e -> client.createBucket(r -> r.bucket(bucket)).thenApply(c -> null)),
        new CancelledRequest(finishCancelledUpTo, 0));
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    if (apache && data.length <= settings.multipartThreshold) {
      software.amazon.awssdk.core.sync.RequestBody rb =
          software.amazon.awssdk.core.sync.RequestBody.fromBytes(data);
      return sync(
          () -> {
            syncClient.putObject(
                r -> r.bucket(bucket).key(key.value()).contentLength((long) data.length), rb);
            return null;
          },
          new CancelledRequest(finishCancelledUpTo, data.length));
    }
    // fromBytes copies, so the caller may reuse its array at once.
    AsyncRequestBody body = AsyncRequestBody.fromBytes(data);
    return call(
        () ->
            uploads()
                .putObject(
                    r -> r.bucket(bucket).key(key.value()).contentLength((long) data.length), body)
                .thenApply(r -> null),
        new CancelledRequest(finishCancelledUpTo, data.length));
  }

  /** S3 checks an object's ETag on PutObject (If-Match, If-None-Match), so conditional puts. */
  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * PutObject with If-Match, the ETag a {@link #getTagged} gave sent as given (quoted, as S3
   * returns it and as the header takes it), or, with {@code ifMatch} empty, with If-None-Match
   * {@code *}. S3 checks the condition and stores in one step. It answers 412 PreconditionFailed
   * when the condition does not hold, 404 NoSuchKey to If-Match on a missing key (a deleted
   * object's tag matches nothing), and 409 ConditionalRequestConflict while another conditional
   * write of the key is in flight: each completes {@code false}, nothing stored by this request. A
   * missing bucket fails as {@link #put} does.
   *
   * <p>Always one PutObject on the plain client, whatever the size: never the multipart upload
   * {@link #put} makes above {@link Builder#multipartThreshold(long)}, so the request that checks
   * the condition is the one that stores. A single PUT takes up to 5 GiB, more than an array holds.
   *
   * <p>A single-part object's ETag is the MD5 of its bytes, so the tag stands for the content: the
   * same bytes stored again keep the tag and still match. The tag {@code *}, which If-Match would
   * take for "any object", is no ETag and matches nothing here ({@code false}, no request). The SDK
   * retries a request whose answer was lost ({@link Builder#maxAttempts(int)}); if that answer was
   * a success, the retry meets the object it stored itself and completes {@code false}. Cancelled
   * as {@link #put}: finished or aborted by its size.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    if (ifMatch.isPresent() && ifMatch.get().equals("*")) {
      return CompletableFuture.completedFuture(false);
    }
    java.util.function.Consumer<software.amazon.awssdk.services.s3.model.PutObjectRequest.Builder>
        request =
            r -> {
              r.bucket(bucket).key(key.value()).contentLength((long) data.length);
              if (ifMatch.isPresent()) {
                r.ifMatch(ifMatch.get());
              } else {
                r.ifNoneMatch("*");
              }
            };
    CancelledRequest cancel = new CancelledRequest(finishCancelledUpTo, data.length);
    CompletableFuture<Boolean> stored;
    if (apache) {
      // fromBytes copies, so the caller may reuse its array at once.
      software.amazon.awssdk.core.sync.RequestBody rb =
          software.amazon.awssdk.core.sync.RequestBody.fromBytes(data);
      stored =
          sync(
              () -> {
                syncClient.putObject(request, rb);
                return true;
              },
              cancel);
    } else {
      AsyncRequestBody body = AsyncRequestBody.fromBytes(data);
      stored = call(() -> asyncClient().putObject(request, body).thenApply(r -> true), cancel);
    }
    return answeringIf(
        stored,
        s3 -> {
          String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
          return s3.statusCode() == 412
              || (s3.statusCode() == 409 && "ConditionalRequestConflict".equals(code))
              || (s3.statusCode() == 404 && ifMatch.isPresent() && "NoSuchKey".equals(code));
        },
        false);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    if (range.isPresent() && range.get().length() == 0) {
      // HTTP cannot ask for zero bytes; check the object exists and answer empty.
      if (apache) {
        return sync(
            () -> {
              syncClient.headObject(r -> r.bucket(bucket).key(key.value()));
              return new byte[0];
            },
            new CancelledRequest(finishCancelledUpTo, 0));
      }
      return call(
          () ->
              client.headObject(r -> r.bucket(bucket).key(key.value())).thenApply(h -> new byte[0]),
          new CancelledRequest(finishCancelledUpTo, 0));
    }
    // A whole object's size, and a large range's real size (a range is a cap), are learned from
    // the response headers, so that a cancelled small download finishes.
    CancelledRequest cancel =
        new CancelledRequest(
            finishCancelledUpTo,
            range.isEmpty()
                ? CancelledRequest.UNKNOWN
                : CancelledRequest.forRange(finishCancelledUpTo, range.get().length()));
    CompletableFuture<byte[]> read =
        apache
            ? sync(
                () -> syncClient.getObjectAsBytes(getRequest(key, range)).asByteArrayUnsafe(),
                cancel)
            : call(
                () ->
                    client
                        .getObject(
                            getRequest(key, range),
                            new SizeWatchingTransformer(AsyncResponseTransformer.toBytes(), cancel))
                        .thenApply(bytes -> bytes.asByteArrayUnsafe()),
                cancel);
    if (range.isEmpty()) {
      return read;
    }
    // A range starting at or after the end gets 416 from S3: the object exists, the answer is
    // empty (as the SPI specifies).
    return answering(read, 416, new byte[0]);
  }

  /** S3 gives every object an ETag, so this driver answers conditional gets. */
  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * GetObject with If-None-Match: the tag is the object's ETag, which S3 changes whenever the
   * object's content changes (a single-part object's is the MD5 of its bytes). S3 answers 304 Not
   * Modified, with no body, while the object still has the ETag sent; the SDK reports that as an
   * {@link S3Exception} of status 304, which is the "unchanged" answer. A missing object is 404
   * whatever the tag. A range is asked as {@link #get} asks it; the ETag is the whole object's. A
   * cancelled request is finished or aborted by its size, as a whole-object {@link #get}.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    if (range.isPresent() && range.get().length() == 0) {
      return Futures.relay(get(key, range), b -> TaggedGet.of(b, null));
    }
    java.util.function.Consumer<software.amazon.awssdk.services.s3.model.GetObjectRequest.Builder>
        request =
            r -> {
              getRequest(key, range).accept(r);
              ifNoneMatch.ifPresent(r::ifNoneMatch);
            };
    CancelledRequest cancel = new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNKNOWN);
    CompletableFuture<TaggedGet> read =
        apache
            ? sync(() -> tagged(syncClient.getObjectAsBytes(request)), cancel)
            : call(
                () ->
                    client
                        .getObject(
                            request,
                            new SizeWatchingTransformer(AsyncResponseTransformer.toBytes(), cancel))
                        .thenApply(S3Cloud::tagged),
                cancel);
    CompletableFuture<TaggedGet> answer =
        ifNoneMatch.isEmpty() ? read : answering(read, 304, TaggedGet.unchanged(ifNoneMatch.get()));
    // A range starting at or after the end (an empty object): empty, as a plain ranged get.
    return range.isEmpty() ? answer : answering(answer, 416, TaggedGet.of(new byte[0], null));
  }

  private static TaggedGet tagged(ResponseBytes<GetObjectResponse> answer) {
    return TaggedGet.of(answer.asByteArrayUnsafe(), answer.response().eTag());
  }

  /**
   * {@code request}, answered {@code answer} instead when S3 answers HTTP {@code status}: an
   * answer, not a failure, for that request (a range past the end, an object not modified).
   * Cancelling the result cancels the request.
   */
  private static <T> CompletableFuture<T> answering(
      CompletableFuture<T> request, int status, T answer) {
    return answeringIf(request, s3 -> s3.statusCode() == status, answer);
  }

  /**
   * {@code request}, answered {@code answer} instead when it fails with an S3 error {@code when}
   * accepts. Cancelling the result cancels the request.
   */
  private static <T> CompletableFuture<T> answeringIf(
      CompletableFuture<T> request, java.util.function.Predicate<S3Exception> when, T answer) {
    CompletableFuture<T> out = new CompletableFuture<>();
    request.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.complete(v);
          } else if (Futures.unwrap(e) instanceof CloudException ce
              && ce.getCause() instanceof S3Exception s3
              && when.test(s3)) {
            out.complete(answer);
          } else {
            out.completeExceptionally(Futures.unwrap(e));
          }
        });
    out.whenComplete(
        (v, e) -> {
          if (out.isCancelled()) {
            request.cancel(true);
          }
        });
    return out;
  }

  /** The GET of {@code key} (of {@code range} of it, if given), for either transport. */
  private java.util.function.Consumer<
          software.amazon.awssdk.services.s3.model.GetObjectRequest.Builder>
      getRequest(ObjectKey key, Optional<ByteRange> range) {
    return r -> {
      r.bucket(bucket).key(key.value());
      range.ifPresent(x -> r.range("bytes=" + x.offset() + "-" + x.lastInclusive()));
    };
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    if (apache) {
      return sync(
          () -> {
            syncClient.deleteObject(r -> r.bucket(bucket).key(key.value()));
            return null;
          },
          new CancelledRequest(finishCancelledUpTo, 0));
    }
    return call(
        () -> client.deleteObject(r -> r.bucket(bucket).key(key.value())).thenApply(r -> null),
        new CancelledRequest(finishCancelledUpTo, 0));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (apache) {
      return sync(
          () -> {
            List<ObjectInfo> out = new ArrayList<>();
            for (S3Object o :
                syncClient
                    .listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix))
                    .contents()) {
              out.add(new ObjectInfo(ObjectKey.of(o.key()), o.size()));
            }
            out.sort(Comparator.comparing(ObjectInfo::key));
            return out;
          },
          new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
    }
    return call(
        () -> {
          List<ObjectInfo> out = new ArrayList<>();
          return client
              .listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix))
              .contents()
              .subscribe((S3Object o) -> out.add(new ObjectInfo(ObjectKey.of(o.key()), o.size())))
              .thenApply(
                  done -> {
                    // S3 lists in UTF-8 byte order, which for ObjectKey's ASCII alphabet is
                    // String order; sorting anyway keeps the contract with odd S3 clones.
                    out.sort(Comparator.comparing(ObjectInfo::key));
                    return out;
                  });
        },
        // A listing may span pages: a cancelled one is always aborted.
        new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
  }

  /**
   * S3's native multipart upload ({@link S3Multipart}), used by RafeStore to store a large value's
   * parts as one object.
   */
  @Override
  public Optional<Multipart> multipart() {
    return Optional.of(multipart);
  }

  static Throwable unwrap(Throwable e) {
    return Futures.unwrap(e);
  }

  /**
   * One ListObjectsV2 request: {@code StartAfter} and {@code MaxKeys} are S3's own paging by name
   * (S3 returns at most 1,000 keys per request, so a larger limit gives a shorter page that says
   * more follow).
   */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    return call(
        () ->
            (apache
                    ? submit(
                        () ->
                            syncClient.listObjectsV2(
                                r -> {
                                  r.bucket(bucket).prefix(prefix).maxKeys(limit);
                                  if (!startAfter.isEmpty()) {
                                    r.startAfter(startAfter);
                                  }
                                }))
                    : client.listObjectsV2(
                        r -> {
                          r.bucket(bucket).prefix(prefix).maxKeys(limit);
                          if (!startAfter.isEmpty()) {
                            r.startAfter(startAfter);
                          }
                        }))
                .thenApply(
                    resp -> {
                      List<ObjectInfo> out = new ArrayList<>();
                      for (S3Object o : resp.contents()) {
                        if (out.size() < limit && o.key().compareTo(startAfter) > 0) {
                          out.add(new ObjectInfo(ObjectKey.of(o.key()), o.size()));
                        }
                      }
                      out.sort(Comparator.comparing(ObjectInfo::key));
                      boolean more = Boolean.TRUE.equals(resp.isTruncated()) && !out.isEmpty();
                      return new ListPage(out, more);
                    }),
        // A listing page's size is not known in advance: a cancelled one is aborted.
        new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (this) {
      if (uploads != null) {
        uploads.close();
      }
    }
    if (apache) {
      // Requests still running fail when the pool closes (UNAVAILABLE, driver is closed).
      executor.shutdown();
      syncClient.close();
      syncHttp.close();
    }
    synchronized (this) {
      if (client == null) {
        if (ownedCredentials != null) {
          ownedCredentials.close();
        }
        return;
      }
    }
    client.close();
    http.close();
    if (ownedCredentials != null) {
      ownedCredentials.close();
    }
    // Closing the SDK's clients closed every channel, so no task is left for the event loops: no
    // quiet period is needed. The SDK's own group would wait Netty's default two seconds for new
    // tasks, which was a third of a one-off command's wall time (docs/cli.md, start-up).
    eventLoops
        .eventLoopGroup()
        .shutdownGracefully(0, QUIET_SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .awaitUninterruptibly(QUIET_SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return "S3Cloud[" + id + ", bucket=" + bucket + ", region=" + region.id() + "]";
  }

  /** A multipart call ({@link S3Multipart}): aborted when cancelled, whatever its size. */
  <T> CompletableFuture<T> call(java.util.function.Supplier<CompletableFuture<T>> start) {
    return call(start, new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
  }

  /**
   * Starts an SDK call and returns a future that fails with a {@link CloudException}; when it is
   * cancelled, {@code cancel} decides whether the SDK's future is cancelled (which aborts the HTTP
   * request and closes its connection) or the request finishes and its result is dropped.
   */
  <T> CompletableFuture<T> call(
      java.util.function.Supplier<CompletableFuture<T>> start, CancelledRequest cancel) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    CompletableFuture<T> sdk;
    try {
      sdk = start.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(translate(e));
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    sdk.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.complete(v);
          } else {
            out.completeExceptionally(translate(e));
          }
        });
    cancel.started(() -> sdk.cancel(true));
    out.whenComplete(
        (v, e) -> {
          if (out.isCancelled()) {
            cancel.cancel();
          }
        });
    return out;
  }

  /** Maps an SDK failure to a {@link CloudException} of this cloud. */
  CloudException translate(Throwable failure) {
    Throwable t = Futures.unwrap(failure);
    if (t instanceof CloudException ce) {
      return ce;
    }
    if (t instanceof CancellationException) {
      return new CloudException(id, Kind.CANCELLED, "request cancelled", t);
    }
    if (t instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
      Kind kind = HttpKinds.forStatus(s3.statusCode(), code);
      return new CloudException(
          id, kind, "HTTP " + s3.statusCode() + " " + code + " (bucket " + bucket + ")", t);
    }
    if (t instanceof SdkClientException) {
      // Connection refused or reset, timeouts, DNS: the cloud could not be reached.
      if (closed) {
        return new CloudException(id, Kind.UNAVAILABLE, "driver is closed", t);
      }
      return new CloudException(id, Kind.UNAVAILABLE, String.valueOf(t.getMessage()), t);
    }
    return new CloudException(
        id, Kind.OTHER, t.getClass().getSimpleName() + ": " + t.getMessage(), t);
  }

  /** How the driver talks HTTP to the store. */
  public enum Transport {
    /**
     * The SDK's asynchronous client on Netty: any number of requests in flight on a few event-loop
     * threads. The default, for a long-running library.
     */
    NETTY,
    /**
     * The SDK's blocking client on Apache HttpClient 4, each request on one of the driver's own
     * threads (at most {@link Builder#maxConnections(int)}, daemon threads, ended when idle for 30
     * s). Loads about a thousand classes fewer than Netty, whose HttpClient classes the GCS driver
     * also uses: for short-lived processes such as the command line (docs/cli.md). Uploads above
     * the multipart threshold and {@link S3Cloud#multipart()} still go through the asynchronous
     * client, built (with Netty) when first needed.
     */
    APACHE
  }

  /**
   * Settings of an {@link S3Cloud}. Required: {@link #bucket(String)}. For MinIO and other
   * emulators set {@link #endpoint(URI)} and {@link #pathStyle(boolean)}.
   *
   * <p>Credentials, first match wins: {@link #credentials(AwsCredentialsProvider)} or an explicit
   * key pair (with or without a session token); {@link #profile(String)}; otherwise the SDK's
   * default credentials chain. Region: {@link #region(String)}; otherwise the AWS region provider
   * chain (the {@code aws.region} system property, {@code AWS_REGION}, the profile's {@code
   * region}, and, for AWS itself, the EC2 instance metadata); see {@link #region(String)} for
   * S3-compatible endpoints.
   *
   * <p>Timeouts (see {@link DriverBuilder}): connect 5 s, read 60 s by default.
   */
  public static final class Builder extends DriverBuilder<Builder> {
    /** S3's smallest part (except the last). */
    static final long MIN_PART_SIZE = 5L * 1024 * 1024;

    /**
     * The signing region of an S3-compatible endpoint when nothing names one: S3's own "no region"
     * (the region of the global endpoint), which MinIO accepts unless it was configured with
     * another.
     */
    static final String COMPATIBLE_DEFAULT_REGION = "us-east-1";

    private String bucket;
    private URI endpoint;
    private String region;
    private String profile;
    private boolean pathStyle;
    private AwsCredentialsProvider credentials;
    private long multipartThreshold = 16L * 1024 * 1024;
    private long partSize = 8L * 1024 * 1024;
    private int maxAttempts = 3;
    private int maxConnections = 64;
    private Duration connectionIdleTimeout = Duration.ofSeconds(60);
    private long finishCancelledUpTo = 256 * 1024;
    private Transport transport = Transport.NETTY;

    private Builder(String id) {
      super(id, Duration.ofSeconds(60));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The bucket holding this cloud's objects. Required. */
    public Builder bucket(String value) {
      this.bucket = value;
      return this;
    }

    /** Endpoint override, such as {@code http://127.0.0.1:9000} for MinIO. */
    public Builder endpoint(URI value) {
      this.endpoint = value;
      return this;
    }

    /**
     * AWS region name, such as {@code eu-west-1}. When not set, {@link #build()} takes it from the
     * AWS region provider chain: the {@code aws.region} system property, the {@code AWS_REGION}
     * environment variable, the {@code region} of the profile ({@link #profile(String)}, else
     * {@code AWS_PROFILE}, else {@code default}) in {@code ~/.aws/config} ({@code
     * AWS_CONFIG_FILE}), and, without an {@link #endpoint(URI)}, the EC2 instance metadata service;
     * if none has one, build fails naming these places. With an endpoint (MinIO and other
     * S3-compatible stores) the instance metadata is not asked (it would describe AWS, not that
     * store) and the region falls back to {@code us-east-1}, which such stores accept unless
     * configured with another.
     */
    public Builder region(String value) {
      this.region = value;
      return this;
    }

    /**
     * A named profile of the shared AWS files ({@code ~/.aws/config} and {@code
     * ~/.aws/credentials}, or {@code AWS_CONFIG_FILE} and {@code AWS_SHARED_CREDENTIALS_FILE}): its
     * credentials (keys with or without {@code aws_session_token}, an assumed role, SSO, a
     * credential process: whatever the SDK's {@code ProfileCredentialsProvider} supports) and, when
     * {@link #region(String)} is not set, its region. Without a profile the default chain still
     * reads the profile named by {@code AWS_PROFILE} (or {@code default}). Not together with
     * explicit credentials. {@link #build()} fails if the files have no such profile.
     */
    public Builder profile(String name) {
      this.profile = name;
      return this;
    }

    /** Path-style addressing ({@code endpoint/bucket/key}), needed by most emulators. */
    public Builder pathStyle(boolean value) {
      this.pathStyle = value;
      return this;
    }

    /**
     * Explicit credentials provider (any of the SDK's, such as an STS role provider); without this
     * or a {@link #profile(String)} the SDK's default chain is used.
     */
    public Builder credentials(AwsCredentialsProvider value) {
      this.credentials = value;
      return this;
    }

    /** Explicit long-term access key pair; without this the SDK's default chain is used. */
    public Builder credentials(String accessKeyId, String secretAccessKey) {
      this.credentials =
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(accessKeyId, secretAccessKey));
      return this;
    }

    /**
     * Explicit temporary credentials: an access key pair with its session token (as STS, SSO or
     * {@code aws sts get-session-token} hand out). They are not refreshed; when they expire,
     * requests fail as unauthorized, so long-running clients should prefer a {@link
     * #profile(String)} or the default chain, which refresh.
     */
    public Builder credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
      this.credentials =
          StaticCredentialsProvider.create(
              AwsSessionCredentials.create(accessKeyId, secretAccessKey, sessionToken));
      return this;
    }

    /** Objects larger than this many bytes are uploaded in parts; at least 5 MiB. Default 16. */
    public Builder multipartThreshold(long bytes) {
      this.multipartThreshold = bytes;
      return this;
    }

    /** Part size of multipart uploads, at least 5 MiB. Default 8 MiB. */
    public Builder partSize(long bytes) {
      this.partSize = bytes;
      return this;
    }

    /** Attempts per request including the first, 1 to 10. Default 3. */
    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    /**
     * Most concurrent HTTP connections, 1 to 4096: the pool's size, so the driver never holds more
     * connections than this; requests beyond it wait for a free one. Default 64.
     */
    public Builder maxConnections(int value) {
      this.maxConnections = value;
      return this;
    }

    /**
     * A pooled connection unused for this long is closed, 1 s to 1 h. Default 60 s (the SDK's):
     * long enough that a steady load reuses its connections, short enough not to hold sockets a
     * server (or a NAT on the way) has already dropped.
     */
    public Builder connectionIdleTimeout(Duration value) {
      this.connectionIdleTimeout = value;
      return this;
    }

    /**
     * A cancelled request whose body (uploaded or downloaded) is at most this many bytes is left to
     * finish and its result dropped, instead of being aborted, because aborting closes its
     * connection; 0 to 64 MiB, 0 aborts every cancelled request. Default 256 KiB: metadata and
     * small values, whose remaining transfer costs less than opening (and on a real cloud
     * TLS-negotiating) a new connection.
     */
    public Builder finishCancelledUpTo(long bytes) {
      this.finishCancelledUpTo = bytes;
      return this;
    }

    /** The HTTP transport (see {@link Transport}). Default {@link Transport#NETTY}. */
    public Builder transport(Transport value) {
      this.transport = Objects.requireNonNull(value, "transport");
      return this;
    }

    /**
     * Validates the settings, chooses the region and credentials (see the class comment; reading
     * the shared AWS files and, for AWS without a region, the instance metadata) and builds the
     * driver.
     *
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    public S3Cloud build() {
      return prepare().get();
    }

    /**
     * {@link #build()} in two steps, for {@link S3DriverProvider#prepare}: checks the settings and
     * chooses the region and credentials now (throwing as {@code build()} does); the supplier
     * builds the SDK client, the slow part (class loading and initialisation). The builder must not
     * change after this call.
     */
    Supplier<S3Cloud> prepare() {
      checkCommon();
      if (bucket == null || bucket.isBlank()) {
        throw new IllegalArgumentException("bucket is required");
      }
      if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null)) {
        throw new IllegalArgumentException(
            "endpoint must be an absolute URL such as http://127.0.0.1:9000, was " + endpoint);
      }
      if (region != null && region.isBlank()) {
        throw new IllegalArgumentException(
            "region must not be blank (leave it unset for the chain)");
      }
      if (profile != null && profile.isBlank()) {
        throw new IllegalArgumentException("profile must not be blank");
      }
      if (profile != null && credentials != null) {
        throw new IllegalArgumentException(
            "give credentials or profile, not both: profile "
                + profile
                + " names its own credentials");
      }
      if (multipartThreshold < MIN_PART_SIZE) {
        throw new IllegalArgumentException(
            "multipartThreshold must be >= 5 MiB ("
                + MIN_PART_SIZE
                + "), was "
                + multipartThreshold);
      }
      if (partSize < MIN_PART_SIZE) {
        throw new IllegalArgumentException(
            "partSize must be >= 5 MiB (" + MIN_PART_SIZE + "), was " + partSize);
      }
      checkRange("maxAttempts", maxAttempts, 1, 10);
      checkRange("maxConnections", maxConnections, 1, 4096);
      if (connectionIdleTimeout == null
          || connectionIdleTimeout.compareTo(Duration.ofSeconds(1)) < 0
          || connectionIdleTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "connectionIdleTimeout must be in [1 s, 1 h], was " + connectionIdleTimeout);
      }
      checkRange("finishCancelledUpTo", finishCancelledUpTo, 0, 64L * 1024 * 1024);
      // Read once, so the profile check, its credentials and its region see the same files.
      ProfileFile profiles = needsProfiles() ? readProfiles() : null;
      ProfileCredentialsProvider fromProfile = null;
      if (profile != null) {
        if (profiles.profile(profile).isEmpty()) {
          throw new IllegalArgumentException(
              "profile "
                  + profile
                  + " is not in the shared AWS files ("
                  + sharedFiles()
                  + "); add it there, or set AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE");
        }
        fromProfile =
            ProfileCredentialsProvider.builder().profileFile(profiles).profileName(profile).build();
      }
      Region chosen = chooseRegion(profiles);
      AwsCredentialsProvider chosenCredentials = credentials != null ? credentials : fromProfile;
      ProfileCredentialsProvider profileCredentials = fromProfile;
      return () -> new S3Cloud(this, chosen, chosenCredentials, profileCredentials);
    }

    private boolean needsProfiles() {
      return profile != null || region == null;
    }

    private static ProfileFile readProfiles() {
      try {
        return ProfileFile.defaultProfileFile();
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "the shared AWS files (" + sharedFiles() + ") cannot be read: " + e.getMessage(), e);
      }
    }

    private static String sharedFiles() {
      return ProfileFileSystemSetting.AWS_CONFIG_FILE.getStringValue().orElse("~/.aws/config")
          + ", "
          + ProfileFileSystemSetting.AWS_SHARED_CREDENTIALS_FILE
              .getStringValue()
              .orElse("~/.aws/credentials");
    }

    private Region chooseRegion(ProfileFile profiles) {
      if (region != null) {
        return Region.of(region);
      }
      String profileName =
          profile != null
              ? profile
              : ProfileFileSystemSetting.AWS_PROFILE.getStringValue().orElse("default");
      AwsRegionProvider chain =
          endpoint == null
              ? DefaultAwsRegionProviderChain.builder()
                  .profileFile(() -> profiles)
                  .profileName(profileName)
                  .build()
              // An S3-compatible store: the instance metadata would name an AWS region, which
              // says nothing about that store, and costs a timeout off EC2.
              : new AwsRegionProviderChain(
                  new SystemSettingsRegionProvider(),
                  new AwsProfileRegionProvider(() -> profiles, profileName));
      try {
        return chain.getRegion();
      } catch (SdkClientException e) {
        if (endpoint != null) {
          return Region.of(COMPATIBLE_DEFAULT_REGION);
        }
        throw new IllegalArgumentException(
            "region is not set and the AWS region provider chain found none (looked at the"
                + " aws.region system property, AWS_REGION, the region of profile "
                + profileName
                + " in "
                + sharedFiles()
                + ", and the EC2 instance metadata): set region, or AWS_REGION",
            e);
      }
    }
  }
}
