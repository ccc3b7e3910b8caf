package io.rafestore.drivers.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.core.exception.ClientAuthenticationException;
import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.util.BinaryData;
import com.azure.core.util.FluxUtil;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.BlobServiceVersion;
import com.azure.storage.blob.models.BlobDownloadAsyncResponse;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.DriverBuilder;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.BlockingCalls;
import io.rafestore.spi.support.CancelledRequest;
import io.rafestore.spi.support.Futures;
import io.rafestore.spi.support.HttpKinds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A cloud in an Azure Blob Storage container (or Azurite), storing each object as a block blob.
 *
 * <p>Uses the JDK {@code HttpClient} transport (Netty is excluded) and pins the service version to
 * {@link BlobServiceVersion#V2025_11_05}, which Azurite accepts. The container is created on the
 * first write that finds it missing; reads and listings of a missing container behave as an empty
 * one (NOT_FOUND, empty list). Authentication, first match wins: a connection string; a SAS token
 * on an explicit endpoint; a {@link TokenCredential} given in code; otherwise, on an explicit
 * endpoint, azure-identity's {@code DefaultAzureCredential} (environment variables, workload
 * identity, managed identity, Azure CLI and the other sources of that chain), so no secret is
 * needed in code or configuration. Token credentials are sent only over HTTPS (the SDK refuses
 * bearer tokens on plain HTTP). Retries are the SDK's, bounded by {@link Builder#maxTries(int)}.
 * Thread-safe.
 *
 * <p>Connections: the JDK {@code HttpClient} keeps every connection whose exchange completed and
 * reuses it; it opens a new one only when none is idle, so the driver bounds its connections by
 * bounding its requests in flight ({@link Builder#maxConnections(int)}; more wait in a queue of at
 * most {@value #WAITING_PER_CONNECTION} per connection, beyond which a request fails at once as
 * {@code UNAVAILABLE}: a cloud that does not keep up must not make the client's memory grow). The
 * client runs on a fixed pool of {@value #HTTP_THREADS} threads. Cancelling a returned future
 * aborts the request if its body is larger than {@link Builder#finishCancelledUpTo(long)} bytes
 * (which closes its connection) and otherwise lets it finish and drops the result, so the
 * connection goes back to the pool (see {@link CancelledRequest}).
 */
public final class AzureBlobCloud implements CloudDriver {
  /** Threads of the JDK HttpClient (its selector thread is extra). */
  private static final int HTTP_THREADS = 4;

  /** Requests that may wait for a connection, per connection (see {@link RequestSlots}). */
  static final int WAITING_PER_CONNECTION = 4;

  private final String id;
  private final BlobContainerAsyncClient container;
  private final AzureMultipart multipart;
  private final long finishCancelledUpTo;
  private final RequestSlots slots;
  private final int maxConnections;
  private final ExecutorService httpThreads;
  private final Authentication authentication;
  private final TokenCredential tokenCredential;
  private volatile boolean closed;

  /** How the driver authenticates, as chosen by the builder (see the class comment). */
  enum Authentication {
    CONNECTION_STRING,
    SAS_TOKEN,
    TOKEN_CREDENTIAL,
    DEFAULT_AZURE_CREDENTIAL,
    ANONYMOUS
  }

  private AzureBlobCloud(Builder b) {
    this.id = b.id();
    this.finishCancelledUpTo = b.finishCancelledUpTo;
    this.maxConnections = b.maxConnections;
    this.slots = new RequestSlots(b.maxConnections, WAITING_PER_CONNECTION * b.maxConnections);
    // The JDK client's default executor is an unbounded cached pool; with 64 connections busy it
    // kept ~76 worker threads. Its tasks never block (the SDK is used asynchronously and RafeStore
    // moves its own work to its executor), so a small fixed pool serves every connection.
    this.httpThreads = BlockingCalls.boundedPool("rafestore-azure-" + id + "-http", HTTP_THREADS);
    HttpClient httpClient =
        new JdkHttpClientBuilder(java.net.http.HttpClient.newBuilder().executor(httpThreads))
            .connectionTimeout(b.connectTimeout())
            .readTimeout(b.readTimeout())
            .writeTimeout(b.readTimeout())
            .responseTimeout(b.readTimeout())
            .build();
    BlobServiceClientBuilder sb =
        new BlobServiceClientBuilder()
            .serviceVersion(BlobServiceVersion.V2025_11_05)
            .httpClient(httpClient)
            .retryOptions(
                new RequestRetryOptions(
                    RetryPolicyType.EXPONENTIAL, b.maxTries, (Duration) null, null, null, null));
    if (b.connectionString != null) {
      sb.connectionString(b.connectionString);
    }
    if (b.endpoint != null) {
      sb.endpoint(b.endpoint);
    }
    if (b.connectionString != null) {
      this.authentication = Authentication.CONNECTION_STRING;
      this.tokenCredential = null;
    } else if (b.sasToken != null) {
      sb.sasToken(b.sasToken);
      this.authentication = Authentication.SAS_TOKEN;
      this.tokenCredential = null;
    } else if (b.anonymous) {
      this.authentication = Authentication.ANONYMOUS;
      this.tokenCredential = null;
    } else {
      // An account endpoint and nothing else: azure-identity's chain. Building it sends nothing;
      // the first request asks it for a token.
      this.authentication =
          b.credential != null
              ? Authentication.TOKEN_CREDENTIAL
              : Authentication.DEFAULT_AZURE_CREDENTIAL;
      this.tokenCredential =
          b.credential != null
              ? b.credential
              : new DefaultAzureCredentialBuilder().httpClient(httpClient).build();
      sb.credential(tokenCredential);
    }
    BlobServiceAsyncClient service = sb.buildAsyncClient();
    this.container = service.getBlobContainerAsyncClient(b.container);
    this.multipart = new AzureMultipart(this, container);
  }

  /** Settings for a driver with the given cloud id. */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  @Override
  public String id() {
    return id;
  }

  /** How this driver authenticates. */
  Authentication authentication() {
    return authentication;
  }

  /** The token credential in use, or null when the driver authenticates otherwise. */
  TokenCredential tokenCredential() {
    return tokenCredential;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    BinaryData body = BinaryData.fromBytes(Objects.requireNonNull(data, "data").clone());
    Mono<Void> upload =
        Mono.defer(() -> container.getBlobAsyncClient(key.value()).upload(body, true)).then();
    return call(
        upload.onErrorResume(
            e -> isContainerMissing(e), e -> container.createIfNotExists().then(upload)),
        new CancelledRequest(finishCancelledUpTo, data.length));
  }

  /**
   * Put Blob checks a blob's ETag (If-Match, If-None-Match), so this driver offers conditional
   * puts.
   */
  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * Put Blob with {@link BlobRequestConditions#setIfMatch} (the ETag a {@link #getTagged} gave,
   * sent as given) or, with {@code ifMatch} empty, {@link BlobRequestConditions#setIfNoneMatch}
   * {@code *}. The service checks the condition and stores in one step, and gives the blob a new
   * ETag on every write (the same bytes written again too). It answers 412 ConditionNotMet when the
   * ETag differs or the blob is gone (404 BlobNotFound is taken alike), and 409 BlobAlreadyExists
   * to If-None-Match {@code *} on an existing blob: both complete {@code false}, nothing stored by
   * this request.
   *
   * <p>Always one Put Blob ({@code BlockBlobAsyncClient#uploadWithResponse} with simple upload
   * options), whatever the size: never the staged blocks and block list {@link #put} may commit for
   * a large value, so the request that checks the condition is the one that stores. With the pinned
   * service version one Put Blob takes up to 5,000 MiB, more than an array holds.
   *
   * <p>A missing container: with {@code ifMatch} it holds no blob, so {@code false}; without, it is
   * created, as by {@link #put}, and the put sent again with its condition. The tag {@code *},
   * which If-Match would take for "any blob", is no ETag and matches nothing here ({@code false},
   * no request). The SDK retries a request whose answer was lost ({@link Builder#maxTries(int)});
   * if that answer was a success, the retry meets the blob it stored itself and completes {@code
   * false}. Cancelled as {@link #put}: finished or aborted by its size.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ifMatch, "ifMatch");
    BinaryData body = BinaryData.fromBytes(Objects.requireNonNull(data, "data").clone());
    if (ifMatch.isPresent() && ifMatch.get().equals("*")) {
      return CompletableFuture.completedFuture(false);
    }
    BlobRequestConditions conditions =
        ifMatch.isPresent()
            ? new BlobRequestConditions().setIfMatch(ifMatch.get())
            : new BlobRequestConditions().setIfNoneMatch("*");
    Mono<Boolean> upload =
        Mono.defer(
                () ->
                    container
                        .getBlobAsyncClient(key.value())
                        .getBlockBlobAsyncClient()
                        .uploadWithResponse(
                            new BlockBlobSimpleUploadOptions(body)
                                .setRequestConditions(conditions)))
            .thenReturn(true);
    Mono<Boolean> stored =
        ifMatch.isPresent()
            ? upload.onErrorResume(AzureBlobCloud::isContainerMissing, e -> Mono.just(false))
            : upload.onErrorResume(
                AzureBlobCloud::isContainerMissing,
                e -> container.createIfNotExists().then(upload));
    return call(
        stored.onErrorResume(
            e ->
                e instanceof BlobStorageException bse
                    && (bse.getStatusCode() == 412
                        || (bse.getStatusCode() == 409
                            && BlobErrorCode.BLOB_ALREADY_EXISTS.equals(bse.getErrorCode()))
                        || (ifMatch.isPresent()
                            && BlobErrorCode.BLOB_NOT_FOUND.equals(bse.getErrorCode()))),
            e -> Mono.just(false)),
        new CancelledRequest(finishCancelledUpTo, data.length));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    var blob = container.getBlobAsyncClient(key.value());
    if (range.isEmpty()) {
      // The size is learned from the response headers, so that a cancelled small download
      // finishes and a cancelled large one is aborted.
      CancelledRequest cancel = new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNKNOWN);
      return call(
          blob.downloadStreamWithResponse(null, null, null, false)
              .flatMap(resp -> collect(resp, cancel)),
          cancel);
    }
    ByteRange r = range.get();
    if (r.length() == 0) {
      // HTTP cannot ask for zero bytes: check the blob exists and answer empty.
      return call(
          blob.getProperties().map(p -> new byte[0]), new CancelledRequest(finishCancelledUpTo, 0));
    }
    CancelledRequest cancel =
        new CancelledRequest(
            finishCancelledUpTo, CancelledRequest.forRange(finishCancelledUpTo, r.length()));
    Mono<byte[]> read =
        blob.downloadStreamWithResponse(new BlobRange(r.offset(), r.length()), null, null, false)
            .flatMap(resp -> collect(resp, cancel))
            // 416: the range starts at or after the end of an existing blob; the SPI says empty.
            .onErrorResume(
                e -> e instanceof BlobStorageException bse && bse.getStatusCode() == 416,
                e -> Mono.just(new byte[0]));
    return call(read, cancel);
  }

  /** Every blob has an ETag, so this driver answers conditional gets. */
  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * Get Blob with If-None-Match ({@link BlobRequestConditions#setIfNoneMatch}): the tag is the
   * blob's ETag, which the service changes on every write of the blob. The service answers 304 Not
   * Modified, with no body, while the blob still has the ETag sent; the SDK reports that as a
   * {@link BlobStorageException} of status 304, which is the "unchanged" answer. A missing blob is
   * 404 whatever the tag. A range is asked as {@link #get} asks it; the ETag is the whole blob's.
   * Cancelled as {@link #get}.
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
    var blob = container.getBlobAsyncClient(key.value());
    BlobRequestConditions conditions =
        ifNoneMatch.map(tag -> new BlobRequestConditions().setIfNoneMatch(tag)).orElse(null);
    CancelledRequest cancel =
        range.isEmpty()
            ? new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNKNOWN)
            : new CancelledRequest(
                finishCancelledUpTo,
                CancelledRequest.forRange(finishCancelledUpTo, range.get().length()));
    BlobRange blobRange = range.map(r -> new BlobRange(r.offset(), r.length())).orElse(null);
    Mono<TaggedGet> read =
        blob.downloadStreamWithResponse(blobRange, null, conditions, false)
            .flatMap(
                resp -> {
                  String tag = resp.getDeserializedHeaders().getETag();
                  return collect(resp, cancel).map(bytes -> TaggedGet.of(bytes, tag));
                })
            .onErrorResume(
                e ->
                    ifNoneMatch.isPresent()
                        && e instanceof BlobStorageException bse
                        && bse.getStatusCode() == 304,
                e -> Mono.just(TaggedGet.unchanged(ifNoneMatch.get())))
            // 416: the range starts at or after the end (an empty blob); empty, as a plain get.
            .onErrorResume(
                e -> e instanceof BlobStorageException bse && bse.getStatusCode() == 416,
                e -> Mono.just(TaggedGet.of(new byte[0], null)));
    return call(read, cancel);
  }

  /**
   * The body of {@code resp}, unless the request was cancelled and the body is too large to be
   * worth finishing: then the response is released (closing its connection) and the request fails.
   */
  private static Mono<byte[]> collect(BlobDownloadAsyncResponse resp, CancelledRequest cancel) {
    Long length = resp.getDeserializedHeaders().getContentLength();
    if (!cancel.learned(length == null ? CancelledRequest.UNBOUNDED : length)) {
      try {
        resp.close();
      } catch (IOException e) {
        // Closing an abandoned response: the connection is dropped either way.
      }
      return Mono.error(new CancellationException("cancelled; not finishing " + length + " bytes"));
    }
    return FluxUtil.collectBytesInByteBufferStream(resp.getValue());
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return call(
        container
            .getBlobAsyncClient(key.value())
            .deleteIfExists()
            .onErrorResume(AzureBlobCloud::isContainerMissing, e -> Mono.just(false))
            .then(),
        new CancelledRequest(finishCancelledUpTo, 0));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    Mono<List<ObjectInfo>> listing =
        container
            .listBlobs(new ListBlobsOptions().setPrefix(prefix.isEmpty() ? null : prefix))
            .map(
                item ->
                    new ObjectInfo(
                        ObjectKey.of(item.getName()), item.getProperties().getContentLength()))
            .collectList()
            .map(
                l -> {
                  List<ObjectInfo> out = new ArrayList<>(l);
                  out.sort(Comparator.comparing(ObjectInfo::key));
                  return out;
                })
            .onErrorResume(AzureBlobCloud::isContainerMissing, e -> Mono.just(List.of()));
    // A listing has no fixed size (it may span pages): a cancelled one is always aborted.
    return call(listing, new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
  }

  /** Staged blocks committed as one block list ({@link AzureMultipart}). */
  @Override
  public Optional<io.rafestore.spi.Multipart> multipart() {
    return Optional.of(multipart);
  }

  @Override
  public void close() {
    // The async clients hold no resources of their own beyond the JDK HttpClient, whose
    // connections are released when it is unreachable; closing stops new requests and lets the
    // HTTP threads end once the requests still running are done.
    closed = true;
    httpThreads.shutdown();
  }

  @Override
  public String toString() {
    return "AzureBlobCloud[" + id + ", container=" + container.getBlobContainerName() + "]";
  }

  static boolean isContainerMissing(Throwable e) {
    return e instanceof BlobStorageException bse
        && BlobErrorCode.CONTAINER_NOT_FOUND.equals(bse.getErrorCode());
  }

  /** A multipart call ({@link AzureMultipart}): aborted when cancelled, whatever its size. */
  <T> CompletableFuture<T> call(Mono<T> request) {
    return call(request, new CancelledRequest(finishCancelledUpTo, CancelledRequest.UNBOUNDED));
  }

  /**
   * Subscribes to {@code request} once one of the {@link Builder#maxConnections(int)} request slots
   * is free; cancelling the returned future aborts the request or lets it finish as {@code cancel}
   * decides (a request still waiting for a slot never starts).
   */
  private <T> CompletableFuture<T> call(Mono<T> request, CancelledRequest cancel) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    boolean accepted =
        slots.run(
            () -> {
              if (out.isDone()) {
                return false; // cancelled while queued
              }
              Disposable running;
              try {
                running =
                    request
                        .doFinally(signal -> slots.release())
                        .subscribe(
                            out::complete,
                            e -> out.completeExceptionally(translate(e)),
                            () -> out.complete(null));
              } catch (RuntimeException e) {
                out.completeExceptionally(translate(e));
                return false;
              }
              cancel.started(running::dispose);
              return true;
            },
            out::isDone);
    if (!accepted) {
      return CompletableFuture.failedFuture(
          new CloudException(
              id,
              Kind.UNAVAILABLE,
              "not keeping up: all "
                  + maxConnections
                  + " connections busy and "
                  + WAITING_PER_CONNECTION * maxConnections
                  + " requests waiting"));
    }
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
    if (t instanceof ClientAuthenticationException cae && cae.getResponse() == null) {
      // A credential that could not produce a token (DefaultAzureCredential found no source,
      // a secret was rejected by the identity provider): nothing reached the storage service.
      return new CloudException(
          id, Kind.UNAUTHORIZED, "no token from the credential: " + cae.getMessage(), t);
    }
    if (t instanceof HttpResponseException hre && hre.getResponse() != null) {
      int status = hre.getResponse().getStatusCode();
      String code =
          t instanceof BlobStorageException bse && bse.getErrorCode() != null
              ? bse.getErrorCode().toString()
              : null;
      return new CloudException(
          id,
          HttpKinds.forStatus(status, code),
          "HTTP " + status + " " + code + " (container " + container.getBlobContainerName() + ")",
          t);
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IOException
          || c instanceof UncheckedIOException
          || c instanceof TimeoutException) {
        return new CloudException(id, Kind.UNAVAILABLE, String.valueOf(c.getMessage()), t);
      }
    }
    return new CloudException(
        id, Kind.OTHER, t.getClass().getSimpleName() + ": " + t.getMessage(), t);
  }

  /**
   * Settings of an {@link AzureBlobCloud}. Required: {@link #container(String)} and either a {@link
   * #connectionString(String)} or an {@link #endpoint(String)}. On an endpoint, the credentials are
   * a {@link #sasToken(String)}, a {@link #credential(TokenCredential)}, none for a public
   * container ({@link #anonymous()}), or by default {@code DefaultAzureCredential}.
   *
   * <p>Timeouts (see {@link DriverBuilder}): connect 5 s, read 60 s by default.
   */
  public static final class Builder extends DriverBuilder<Builder> {
    private String container;
    private String connectionString;
    private String endpoint;
    private String sasToken;
    private TokenCredential credential;
    private boolean anonymous;
    private int maxTries = 3;
    private int maxConnections = 64;
    private long finishCancelledUpTo = 256 * 1024;

    private Builder(String id) {
      super(id, Duration.ofSeconds(60));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Container name (3-63 lowercase letters, digits and dashes). Required. */
    public Builder container(String value) {
      this.container = value;
      return this;
    }

    /** A storage connection string, such as Azurite's development one. */
    public Builder connectionString(String value) {
      this.connectionString = value;
      return this;
    }

    /** Endpoint override, such as {@code http://127.0.0.1:10000/devstoreaccount1}. */
    public Builder endpoint(String value) {
      this.endpoint = value;
      return this;
    }

    /** A shared access signature for the endpoint. */
    public Builder sasToken(String value) {
      this.sasToken = value;
      return this;
    }

    /**
     * A token credential for the endpoint (for example a {@code ClientSecretCredential} or a
     * managed identity), instead of the default {@code DefaultAzureCredential}.
     */
    public Builder credential(TokenCredential value) {
      this.credential = value;
      return this;
    }

    /** Sends no credentials (a public container on an endpoint). */
    public Builder anonymous() {
      this.anonymous = true;
      return this;
    }

    /** Tries per request including the first, 1 to 10. Default 3. */
    public Builder maxTries(int value) {
      this.maxTries = value;
      return this;
    }

    /**
     * Most requests in flight, and so most open connections, 1 to 4096; more requests wait in a
     * queue. Default 64. The JDK {@code HttpClient} has no pool limit of its own: it opens one
     * connection per concurrent request and keeps it, so this bound is the pool's.
     */
    public Builder maxConnections(int value) {
      this.maxConnections = value;
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

    /** Validates the settings and builds the driver. */
    public AzureBlobCloud build() {
      return prepare().get();
    }

    /**
     * {@link #build()} in two steps, for {@link AzureDriverProvider#prepare}: checks the settings
     * now, throwing as {@code build()} does; the supplier builds the SDK client, the slow part
     * (which may still reject a malformed connection string or endpoint, as the SDK parses them).
     * The builder must not change after this call.
     */
    Supplier<AzureBlobCloud> prepare() {
      checkCommon();
      if (container == null || !container.matches("[a-z0-9](?:[a-z0-9-]{1,61})[a-z0-9]")) {
        throw new IllegalArgumentException(
            "container must be 3-63 lowercase letters, digits and dashes, was " + container);
      }
      if (connectionString == null && endpoint == null) {
        throw new IllegalArgumentException("connectionString or endpoint is required");
      }
      int sources =
          (connectionString != null ? 1 : 0)
              + (sasToken != null ? 1 : 0)
              + (credential != null ? 1 : 0)
              + (anonymous ? 1 : 0);
      if (sources > 1) {
        throw new IllegalArgumentException(
            "give at most one of connectionString, sasToken, credential and anonymous");
      }
      if (sources == 0
          && endpoint != null
          && !endpoint.regionMatches(true, 0, "https://", 0, "https://".length())) {
        throw new IllegalArgumentException(
            "endpoint "
                + endpoint
                + " is not https, so no token credential (DefaultAzureCredential) can be used on"
                + " it: give a connectionString or a sasToken, or anonymous() for a public"
                + " container");
      }
      checkRange("maxTries", maxTries, 1, 10);
      checkRange("maxConnections", maxConnections, 1, 4096);
      checkRange("finishCancelledUpTo", finishCancelledUpTo, 0, 64L * 1024 * 1024);
      return () -> new AzureBlobCloud(this);
    }
  }
}
