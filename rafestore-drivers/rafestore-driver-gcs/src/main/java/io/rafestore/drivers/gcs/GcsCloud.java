package io.rafestore.drivers.gcs;

import com.google.api.client.http.apache.v2.ApacheHttpTransport;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.Credentials;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.BaseServiceException;
import com.google.cloud.NoCredentials;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.DriverBuilder;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.BlockingCalls;
import io.rafestore.spi.support.HttpKinds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.http.impl.client.CloseableHttpClient;

/**
 * A cloud in a Google Cloud Storage bucket (or fake-gcs-server), over google-cloud-storage.
 *
 * <p>The SDK is blocking, so calls run on a pool of at most {@link Builder#maxThreads(int)}
 * threads; cancelling a call that has not started means it never runs, cancelling a running one
 * drops its result. Objects above {@link Builder#resumableThreshold(long)} are written through a
 * resumable upload in chunks; GCS makes an object visible only when its upload completes. Ranged
 * reads use a read channel limited to the range. Retries are the SDK's, bounded by {@link
 * Builder#maxAttempts(int)}. Thread-safe.
 *
 * <p>Credentials, first match wins: {@link Builder#credentials(Credentials)}; a key file ({@link
 * Builder#credentialsFile(Path)}); none with {@link Builder#anonymous(boolean)} (emulators);
 * otherwise Google's Application Default Credentials, looked up when the driver is built: the file
 * named by {@code GOOGLE_APPLICATION_CREDENTIALS}, the file {@code gcloud auth application-default
 * login} writes, then the metadata server of Google Cloud (skipped when {@code NO_GCE_CHECK=true}).
 * If none is found, {@link Builder#build()} fails saying so, instead of the SDK's default of
 * sending every request unauthenticated.
 *
 * <p>Connections: the SDK's default transport is the JDK's {@code HttpURLConnection}, whose
 * process-wide keep-alive cache holds at most 5 idle connections per server ({@code
 * http.maxConnections}); with more threads than that, every burst opened connections that were
 * closed on return (measured: hundreds of connections and TIME_WAIT sockets over 10,000 operations
 * with 16 threads). The driver therefore gives the SDK an Apache HttpClient transport with its own
 * pool of exactly {@link Builder#maxThreads(int)} connections (one per thread, so a thread never
 * waits for a connection and a returned one is always kept), closing connections idle for longer
 * than {@link Builder#connectionIdleTimeout(Duration)}. Open connections to the server therefore
 * never exceed {@code maxThreads}.
 */
public final class GcsCloud implements CloudDriver {
  /**
   * How many times a conditional get reads the generation again when the object was overwritten
   * between its two requests; then it answers a plain read, without a tag.
   */
  private static final int GENERATION_READS = 3;

  private final String id;
  private final String bucket;
  private final long resumableThreshold;
  private final int chunkSize;
  private final Storage storage;
  private final ExecutorService pool;
  private final GcsMultipart multipart;
  private final CloseableHttpClient http;
  private volatile boolean closed;

  private GcsCloud(Builder b, Credentials credentials) {
    this.id = b.id();
    this.bucket = b.bucket;
    this.resumableThreshold = b.resumableThreshold;
    this.chunkSize = b.chunkSize;
    // Invariant: pool size == maxThreads, so every request thread holds at most one connection
    // and a connection it returns is kept (see the class comment).
    this.http =
        ApacheHttpTransport.newDefaultHttpClientBuilder()
            .setMaxConnTotal(b.maxThreads)
            .setMaxConnPerRoute(b.maxThreads)
            .evictIdleConnections(b.connectionIdleTimeout.toMillis(), TimeUnit.MILLISECONDS)
            .build();
    ApacheHttpTransport transport = new ApacheHttpTransport(http);
    StorageOptions.Builder ob =
        StorageOptions.http()
            .setTransportOptions(
                HttpTransportOptions.newBuilder()
                    .setHttpTransportFactory(() -> transport)
                    .setConnectTimeout(Math.toIntExact(b.connectTimeout().toMillis()))
                    .setReadTimeout(Math.toIntExact(b.readTimeout().toMillis()))
                    .build())
            .setRetrySettings(
                RetrySettings.newBuilder()
                    .setMaxAttempts(b.maxAttempts)
                    .setInitialRetryDelayDuration(Duration.ofMillis(100))
                    .setMaxRetryDelayDuration(Duration.ofSeconds(5))
                    .setRetryDelayMultiplier(2.0)
                    .setTotalTimeoutDuration(b.readTimeout().multipliedBy(b.maxAttempts))
                    .build());
    if (b.endpoint != null) {
      ob.setHost(b.endpoint.toString());
    }
    if (b.projectId != null) {
      ob.setProjectId(b.projectId);
    }
    ob.setCredentials(credentials);
    this.storage = ob.build().getService();
    this.pool = BlockingCalls.boundedPool("rafestore-gcs-" + id, b.maxThreads);
    this.multipart = new GcsMultipart(this, storage, bucket);
  }

  /** Settings for a driver with the given cloud id. */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  /** The credentials the SDK signs requests with ({@link NoCredentials} when anonymous). */
  Credentials credentials() {
    return storage.getOptions().getCredentials();
  }

  @Override
  public String id() {
    return id;
  }

  /** Creates the bucket if it does not exist (for tests and first-time set-up). */
  public CompletableFuture<Void> createBucketIfMissing() {
    return call(
        () -> {
          if (storage.get(bucket) == null) {
            storage.create(BucketInfo.of(bucket));
          }
          return null;
        });
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    byte[] copy = Objects.requireNonNull(data, "data").clone();
    BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, key.value())).build();
    return call(
        () -> {
          if (copy.length <= resumableThreshold) {
            storage.create(info, copy);
          } else {
            try (WriteChannel out = storage.writer(info)) {
              out.setChunkSize(chunkSize);
              ByteBuffer buf = ByteBuffer.wrap(copy);
              while (buf.hasRemaining()) {
                out.write(buf);
              }
            }
          }
          return null;
        });
  }

  /**
   * GCS checks an object's generation on upload ({@code ifGenerationMatch}), so this driver offers
   * conditional puts.
   */
  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * An upload with the precondition {@code ifGenerationMatch}: the generation a {@link #getTagged}
   * gave as its tag ({@link Storage.BlobTargetOption#generationMatch(long)}), or, with {@code
   * ifMatch} empty, 0, which GCS reads as "no live object" ({@link
   * Storage.BlobTargetOption#doesNotExist()}). GCS checks the precondition and creates the new
   * generation in one step, and gives every write a new generation (the same bytes written again
   * too). It answers 412 Precondition Failed when the condition does not hold, a missing object
   * included: {@code false}, nothing stored by this request. A missing bucket fails as {@link #put}
   * does.
   *
   * <p>Written as {@link #put} writes: one upload request up to {@link
   * Builder#resumableThreshold(long)}, a resumable upload above it, whose precondition is given
   * when the session starts and checked by GCS when it completes, so a large conditional put is as
   * atomic as a small one. A tag that is not a positive decimal number is no generation of this
   * driver's and matches nothing ({@code false}, no request; 0 would otherwise mean "absent"). The
   * SDK retries a conditional upload whose answer was lost ({@link Builder#maxAttempts(int)}); if
   * that answer was a success, the retry meets the generation it created itself and completes
   * {@code false}. Cancelled as {@link #put}.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ifMatch, "ifMatch");
    byte[] copy = Objects.requireNonNull(data, "data").clone();
    long generation;
    if (ifMatch.isEmpty()) {
      generation = 0;
    } else {
      try {
        generation = Long.parseLong(ifMatch.get());
      } catch (NumberFormatException e) {
        return CompletableFuture.completedFuture(false);
      }
      if (generation <= 0 || !ifMatch.get().equals(Long.toString(generation))) {
        return CompletableFuture.completedFuture(false);
      }
    }
    BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, key.value())).build();
    return call(
        () -> {
          try {
            if (copy.length <= resumableThreshold) {
              storage.create(
                  info,
                  copy,
                  generation == 0
                      ? Storage.BlobTargetOption.doesNotExist()
                      : Storage.BlobTargetOption.generationMatch(generation));
            } else {
              try (WriteChannel out =
                  storage.writer(
                      info,
                      generation == 0
                          ? Storage.BlobWriteOption.doesNotExist()
                          : Storage.BlobWriteOption.generationMatch(generation))) {
                out.setChunkSize(chunkSize);
                ByteBuffer buf = ByteBuffer.wrap(copy);
                while (buf.hasRemaining()) {
                  out.write(buf);
                }
              }
            }
            return true;
          } catch (IOException | RuntimeException e) {
            if (preconditionFailed(e)) {
              return false;
            }
            throw e;
          }
        });
  }

  /** Whether {@code e} is GCS's 412 answer (itself, or the cause of a write channel's failure). */
  private static boolean preconditionFailed(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException se) {
        return se.getCode() == 412;
      }
    }
    return false;
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    BlobId blobId = BlobId.of(bucket, key.value());
    return call(
        () -> {
          if (range.isEmpty()) {
            return storage.readAllBytes(blobId);
          }
          byte[] bytes = readRange(blobId, range.get());
          if (bytes == null) {
            throw CloudException.notFound(id, key);
          }
          return bytes;
        });
  }

  /**
   * {@code r} of the object {@code blobId} names (a generation of it, if the id has one), clipped
   * against its size, so a range past the end is empty, whatever the server does with such ranges;
   * null if there is no such object (or generation).
   */
  private byte[] readRange(BlobId blobId, ByteRange r) throws IOException {
    Blob blob = storage.get(blobId);
    if (blob == null) {
      return null;
    }
    return readSpan(blobId, blob.getSize(), r);
  }

  /** {@code r} of the object {@code blobId} names, whose size is {@code size}, clipped to it. */
  private byte[] readSpan(BlobId blobId, long size, ByteRange r) throws IOException {
    long[] span = r.clip(size);
    if (span[1] <= span[0]) {
      return new byte[0];
    }
    try (ReadChannel in = storage.reader(blobId)) {
      in.seek(span[0]);
      in.limit(span[1]);
      ByteArrayOutputStream out = new ByteArrayOutputStream((int) (span[1] - span[0]));
      ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
      while (in.read(buf) >= 0) {
        buf.flip();
        out.write(buf.array(), 0, buf.limit());
        buf.clear();
      }
      return out.toByteArray();
    }
  }

  /** Every GCS object has a generation, so this driver answers conditional gets. */
  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * The tag is the object's generation, which GCS gives anew to every write of an object (a rewrite
   * of the same bytes too), so a generation stands for one content. Two requests at most: a
   * metadata get of the generation alone (a few hundred bytes of JSON, one class B operation),
   * compared here with the tag sent, which ends an unchanged answer; otherwise a read of that very
   * generation ({@code generation=} on the media get), so the bytes are those the tag was given
   * for. An object overwritten between the two has lost that generation (404 in a bucket without
   * versioning): the generation is read again, at most 3 times ({@code GENERATION_READS}), and then
   * the object is read without a tag. (Were the generation not honoured, the bytes would be newer
   * than their tag, never older: the next conditional get would send them again, no more.)
   *
   * <p>Why not the precondition {@code ifGenerationNotMatch} on the media get (304 Not Modified
   * when it matches): the SDK's reads ({@code readAllBytes}, the read channel) do not say which
   * generation they read, so the bytes could not be tagged without the metadata get anyway, and
   * fake-gcs-server (1.56) ignores the precondition on reads (it honours it only on uploads), so it
   * could not be tested. The comparison here costs the same request as a 304.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    BlobId blobId = BlobId.of(bucket, key.value());
    return call(
        () -> {
          for (int attempt = 0; attempt < GENERATION_READS; attempt++) {
            Blob blob =
                storage.get(
                    blobId,
                    Storage.BlobGetOption.fields(
                        Storage.BlobField.GENERATION, Storage.BlobField.SIZE));
            if (blob == null) {
              throw CloudException.notFound(id, key);
            }
            Long generation = blob.getGeneration();
            if (generation == null) {
              break; // no generation to tag with (not GCS's way): a plain read
            }
            String tag = Long.toString(generation);
            if (ifNoneMatch.isPresent() && ifNoneMatch.get().equals(tag)) {
              return TaggedGet.unchanged(tag);
            }
            try {
              BlobId exact = BlobId.of(bucket, key.value(), generation);
              Long size = blob.getSize();
              byte[] bytes =
                  range.isEmpty()
                      ? storage.readAllBytes(exact)
                      : size != null
                          ? readSpan(exact, size, range.get())
                          : readRange(exact, range.get());
              if (bytes != null) {
                return TaggedGet.of(bytes, tag);
              }
              // That generation is gone (overwritten or deleted since): read the generation again.
            } catch (StorageException e) {
              if (e.getCode() != 404) {
                throw e;
              }
              // Overwritten or deleted since: read the generation again.
            }
          }
          if (range.isEmpty()) {
            return TaggedGet.of(storage.readAllBytes(blobId), null);
          }
          byte[] bytes = readRange(blobId, range.get());
          if (bytes == null) {
            throw CloudException.notFound(id, key);
          }
          return TaggedGet.of(bytes, null);
        });
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return call(
        () -> {
          storage.delete(BlobId.of(bucket, key.value())); // false if missing: still a success
          return null;
        });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return call(
        () -> {
          List<ObjectInfo> out = new ArrayList<>();
          Iterable<Blob> blobs =
              prefix.isEmpty()
                  ? storage.list(bucket).iterateAll()
                  : storage.list(bucket, Storage.BlobListOption.prefix(prefix)).iterateAll();
          for (Blob b : blobs) {
            out.add(new ObjectInfo(ObjectKey.of(b.getName()), b.getSize()));
          }
          out.sort(Comparator.comparing(ObjectInfo::key));
          return out;
        });
  }

  /** A parallel composite upload ({@link GcsMultipart}): part objects composed into one. */
  @Override
  public Optional<io.rafestore.spi.Multipart> multipart() {
    return Optional.of(multipart);
  }

  /**
   * GCS's own paging by name: {@code startOffset} (inclusive, so {@code startAfter} itself is
   * skipped) and a page size of one more than the limit, to learn whether more follow. The
   * iteration stops after limit + 1 names, so it never fetches more than the page it needs.
   */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    return call(
        () -> {
          List<Storage.BlobListOption> options = new ArrayList<>();
          options.add(Storage.BlobListOption.pageSize(Math.min(1000L, limit + 1L)));
          if (!prefix.isEmpty()) {
            options.add(Storage.BlobListOption.prefix(prefix));
          }
          if (!startAfter.isEmpty()) {
            options.add(Storage.BlobListOption.startOffset(startAfter));
          }
          List<ObjectInfo> out = new ArrayList<>();
          boolean more = false;
          for (Blob b :
              storage.list(bucket, options.toArray(new Storage.BlobListOption[0])).iterateAll()) {
            if (b.getName().compareTo(startAfter) <= 0) {
              continue;
            }
            if (out.size() == limit) {
              more = true;
              break;
            }
            out.add(new ObjectInfo(ObjectKey.of(b.getName()), b.getSize()));
          }
          out.sort(Comparator.comparing(ObjectInfo::key));
          return new ListPage(out, more);
        });
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pool.shutdown();
    try {
      storage.close();
    } catch (Exception e) {
      // Closing only releases pooled connections; nothing a caller could act on.
    }
    try {
      http.close();
    } catch (IOException e) {
      // As above: the pool's sockets are closed or already gone.
    }
  }

  @Override
  public String toString() {
    return "GcsCloud[" + id + ", bucket=" + bucket + "]";
  }

  <T> CompletableFuture<T> call(Callable<T> body) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    return BlockingCalls.submit(pool, body, this::translate);
  }

  /** Maps an SDK failure to a {@link CloudException} of this cloud. */
  CloudException translate(Throwable t) {
    if (t instanceof CloudException ce) {
      return ce;
    }
    if (t instanceof RejectedExecutionException) {
      return new CloudException(id, Kind.UNAVAILABLE, "driver is closed", t);
    }
    if (t instanceof BaseServiceException se) {
      if (se.getCode() > 0) {
        return new CloudException(
            id,
            HttpKinds.forStatus(se.getCode(), se.getReason()),
            "HTTP " + se.getCode() + " " + se.getReason() + " (bucket " + bucket + ")",
            t);
      }
      // Code 0: no HTTP answer (connection refused, timeout).
      return new CloudException(id, Kind.UNAVAILABLE, String.valueOf(se.getMessage()), t);
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BaseServiceException se && se.getCode() > 0) {
        return new CloudException(
            id,
            HttpKinds.forStatus(se.getCode(), se.getReason()),
            "HTTP " + se.getCode() + " " + se.getReason(),
            t);
      }
      if (c instanceof IOException) {
        return new CloudException(id, Kind.UNAVAILABLE, String.valueOf(c.getMessage()), t);
      }
    }
    return new CloudException(
        id, Kind.OTHER, t.getClass().getSimpleName() + ": " + t.getMessage(), t);
  }

  /**
   * Settings of a {@link GcsCloud}. Required: {@link #bucket(String)}. For fake-gcs-server set
   * {@link #endpoint(URI)}, {@link #anonymous(boolean)} and a {@link #projectId(String)}.
   *
   * <p>Timeouts (see {@link DriverBuilder}): connect 5 s, read 60 s by default.
   */
  public static final class Builder extends DriverBuilder<Builder> {
    private String bucket;
    private URI endpoint;
    private String projectId;
    private boolean anonymous;
    private Credentials credentials;
    private Path credentialsFile;
    private long resumableThreshold = 8L * 1024 * 1024;
    private int chunkSize = 8 * 1024 * 1024;
    private int maxAttempts = 3;
    private int maxThreads = 16;
    private Duration connectionIdleTimeout = Duration.ofSeconds(60);

    private Builder(String id) {
      super(id, Duration.ofSeconds(60));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Bucket holding this cloud's objects. Required. */
    public Builder bucket(String value) {
      this.bucket = value;
      return this;
    }

    /** Host override, such as {@code http://127.0.0.1:4443} for fake-gcs-server. */
    public Builder endpoint(URI value) {
      this.endpoint = value;
      return this;
    }

    /** Project id; default from the environment. */
    public Builder projectId(String value) {
      this.projectId = value;
      return this;
    }

    /** Send no credentials (emulators only). Default false: Application Default Credentials. */
    public Builder anonymous(boolean value) {
      this.anonymous = value;
      return this;
    }

    /**
     * Explicit credentials (for example {@code ServiceAccountCredentials} or impersonated ones),
     * instead of Application Default Credentials.
     */
    public Builder credentials(Credentials value) {
      this.credentials = value;
      return this;
    }

    /**
     * A credentials JSON file (a service account key, or any file {@code
     * GOOGLE_APPLICATION_CREDENTIALS} may name), read when the driver is built, instead of
     * Application Default Credentials.
     */
    public Builder credentialsFile(Path value) {
      this.credentialsFile = value;
      return this;
    }

    /** Objects larger than this are written by resumable upload; >= 0. Default 8 MiB. */
    public Builder resumableThreshold(long bytes) {
      this.resumableThreshold = bytes;
      return this;
    }

    /** Resumable upload chunk, a positive multiple of 256 KiB. Default 8 MiB. */
    public Builder chunkSize(int bytes) {
      this.chunkSize = bytes;
      return this;
    }

    /** Attempts per request including the first, 1 to 10. Default 3. */
    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    /**
     * Most concurrent requests (threads), 1 to 1024, and so the size of the connection pool: the
     * driver never holds more than this many connections to the server. Default 16.
     */
    public Builder maxThreads(int value) {
      this.maxThreads = value;
      return this;
    }

    /**
     * A pooled connection unused for this long is closed, 1 s to 1 h. Default 60 s: long enough
     * that a steady load reuses its connections, short enough not to hold sockets a server (or a
     * NAT on the way) has already dropped.
     */
    public Builder connectionIdleTimeout(Duration value) {
      this.connectionIdleTimeout = value;
      return this;
    }

    /** Validates the settings and builds the driver. */
    public GcsCloud build() {
      return prepare().get();
    }

    /**
     * {@link #build()} in two steps, for {@link GcsDriverProvider#prepare}: checks the settings and
     * chooses the credentials now (reading a credentials file, or looking for Application Default
     * Credentials), throwing as {@code build()} does; the supplier builds the SDK client, the slow
     * part. The builder must not change after this call.
     */
    Supplier<GcsCloud> prepare() {
      checkCommon();
      if (bucket == null || bucket.isBlank()) {
        throw new IllegalArgumentException("bucket is required");
      }
      if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null)) {
        throw new IllegalArgumentException(
            "endpoint must be an absolute URL such as http://127.0.0.1:4443, was " + endpoint);
      }
      if (resumableThreshold < 0) {
        throw new IllegalArgumentException(
            "resumableThreshold must be >= 0, was " + resumableThreshold);
      }
      if (chunkSize <= 0 || chunkSize % (256 * 1024) != 0) {
        throw new IllegalArgumentException(
            "chunkSize must be a positive multiple of 262144 (256 KiB), was " + chunkSize);
      }
      checkRange("maxAttempts", maxAttempts, 1, 10);
      checkRange("maxThreads", maxThreads, 1, 1024);
      if (connectionIdleTimeout == null
          || connectionIdleTimeout.compareTo(Duration.ofSeconds(1)) < 0
          || connectionIdleTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "connectionIdleTimeout must be in [1 s, 1 h], was " + connectionIdleTimeout);
      }
      int sources =
          (anonymous ? 1 : 0) + (credentials != null ? 1 : 0) + (credentialsFile != null ? 1 : 0);
      if (sources > 1) {
        throw new IllegalArgumentException(
            "give at most one of anonymous, credentials and credentialsFile");
      }
      Credentials chosen = chooseCredentials();
      return () -> new GcsCloud(this, chosen);
    }

    private Credentials chooseCredentials() {
      if (anonymous) {
        return NoCredentials.getInstance();
      }
      if (credentials != null) {
        return credentials;
      }
      if (credentialsFile != null) {
        try (InputStream in = Files.newInputStream(credentialsFile)) {
          return GoogleCredentials.fromStream(in);
        } catch (NoSuchFileException e) {
          throw new IllegalArgumentException(
              "credentialsFile " + credentialsFile + " does not exist", e);
        } catch (IOException | RuntimeException e) {
          // The message may quote the file's JSON, which holds a private key: not passed on.
          throw new IllegalArgumentException(
              "credentialsFile "
                  + credentialsFile
                  + " is not a Google credentials JSON file (such as a service account key): "
                  + e.getClass().getSimpleName(),
              e);
        }
      }
      try {
        return GoogleCredentials.getApplicationDefault();
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "no Application Default Credentials were found: set GOOGLE_APPLICATION_CREDENTIALS to"
                + " a key file, run 'gcloud auth application-default login', or run on Google"
                + " Cloud; or give credentialsFile, or anonymous for an emulator ("
                + e.getMessage()
                + ")",
            e);
      }
    }
  }
}
