package io.rafestore.drivers.redis;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * A cloud on a Redis server, through Jedis: the fast memory tier (seed 000) and the paper's local
 * store p0. Objects are binary Redis strings under {@code <prefix><object name>}, so several stores
 * can share one server; listing uses {@code SCAN} with the prefix and sorts the names.
 *
 * <p><b>Durability</b> is whatever the Redis server is configured for: with neither RDB snapshots
 * nor the append-only file, a restart loses every object. RafeStore tolerates that like any other
 * faulty cloud (up to f), but for a store that should survive restarts configure {@code appendonly
 * yes} (and {@code appendfsync everysec} or {@code always}) on the server.
 *
 * <p>Jedis is blocking, so calls run on a bounded pool of this driver's threads (a queue behind
 * them); a call cancelled before it starts is skipped, one already running finishes and its result
 * is dropped. Credentials are never required in code: {@link Builder#uri} may carry them, or {@link
 * Builder#passwordFromEnv} names an environment variable. Thread-safe.
 */
public final class RedisCloud implements CloudDriver {
  private final String id;
  private final byte[] prefix;
  private final String prefixText;
  private final RedisClient client;
  private final ExecutorService pool;
  private volatile boolean closed;

  private RedisCloud(Builder b) {
    this.id = b.id;
    this.prefixText = b.prefix;
    this.prefix = b.prefix.getBytes(StandardCharsets.UTF_8);
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis((int) b.connectTimeout.toMillis())
            .socketTimeoutMillis((int) b.readTimeout.toMillis());
    String user = b.uri.getUserInfo() == null ? null : b.uri.getUserInfo().split(":", 2)[0];
    String password = null;
    if (b.uri.getUserInfo() != null && b.uri.getUserInfo().contains(":")) {
      password = b.uri.getUserInfo().split(":", 2)[1];
    }
    if (b.passwordEnv != null) {
      password = System.getenv(b.passwordEnv);
    }
    if (user != null && !user.isEmpty()) {
      config.user(user);
    }
    if (password != null) {
      config.password(password);
    }
    int port = b.uri.getPort() < 0 ? 6379 : b.uri.getPort();
    this.client =
        RedisClient.builder()
            .hostAndPort(b.uri.getHost(), port)
            .clientConfig(config.build())
            .build();
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            b.threads,
            b.threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "rafestore-redis-" + id + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    executor.allowCoreThreadTimeOut(true);
    this.pool = executor;
  }

  /**
   * A builder for a store with the given cloud id on the server at {@code uri} ({@code
   * redis://[user:password@]host:port}).
   */
  public static Builder builder(String id, URI uri) {
    return new Builder(id, uri);
  }

  @Override
  public String id() {
    return id;
  }

  private byte[] redisKey(ObjectKey key) {
    byte[] name = key.value().getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[prefix.length + name.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(name, 0, out, prefix.length, name.length);
    return out;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    byte[] k = redisKey(key);
    return call(
        () -> {
          client.set(k, data);
          return null;
        });
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    byte[] k = redisKey(key);
    return call(
        () -> {
          if (range.isEmpty()) {
            byte[] value = client.get(k);
            if (value == null) {
              throw CloudException.notFound(id, key);
            }
            return value;
          }
          ByteRange r = range.get();
          long size = client.strlen(k);
          if (size == 0 && !client.exists(k)) {
            throw CloudException.notFound(id, key);
          }
          long[] span = r.clip(size);
          if (span[1] <= span[0]) {
            return new byte[0];
          }
          // GETRANGE bounds are inclusive; the object may change between STRLEN and GETRANGE,
          // which at worst returns the other whole version's bytes for this range.
          return client.getrange(k, span[0], span[1] - 1);
        });
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    byte[] k = redisKey(key);
    return call(
        () -> {
          client.del(k);
          return null;
        });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String listPrefix) {
    Objects.requireNonNull(listPrefix, "prefix");
    return call(
        () -> {
          ScanParams params =
              new ScanParams().match(glob(prefixText + listPrefix) + "*").count(1000);
          List<ObjectInfo> out = new ArrayList<>();
          String cursor = ScanParams.SCAN_POINTER_START;
          do {
            ScanResult<byte[]> page =
                client.scan(cursor.getBytes(StandardCharsets.US_ASCII), params);
            for (byte[] k : page.getResult()) {
              String name = new String(k, StandardCharsets.UTF_8).substring(prefixText.length());
              long size = client.strlen(k);
              out.add(new ObjectInfo(ObjectKey.of(name), size));
            }
            cursor = page.getCursor();
          } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
          out.sort(Comparator.comparing(ObjectInfo::key));
          return out;
        });
  }

  /** Escapes Redis glob metacharacters so the prefix matches literally. */
  static String glob(String literal) {
    StringBuilder sb = new StringBuilder();
    for (char c : literal.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  private interface Call<T> {
    T run() throws CloudException;
  }

  private <T> CompletableFuture<T> call(Call<T> body) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new CloudException(id, CloudException.Kind.UNAVAILABLE, "driver is closed"));
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      pool.execute(
          () -> {
            if (result.isDone()) {
              return; // cancelled before it started
            }
            try {
              result.complete(body.run());
            } catch (CloudException e) {
              result.completeExceptionally(e);
            } catch (RuntimeException e) {
              result.completeExceptionally(map(e));
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new CloudException(id, CloudException.Kind.UNAVAILABLE, "driver is closed", e));
    }
    return result;
  }

  private CloudException map(RuntimeException e) {
    if (e instanceof JedisAccessControlException) {
      return new CloudException(id, CloudException.Kind.UNAUTHORIZED, e.getMessage(), e);
    }
    if (e instanceof JedisConnectionException) {
      return new CloudException(id, CloudException.Kind.UNAVAILABLE, e.getMessage(), e);
    }
    if (e instanceof JedisDataException) {
      String m = String.valueOf(e.getMessage());
      if (m.startsWith("NOAUTH") || m.startsWith("WRONGPASS") || m.startsWith("NOPERM")) {
        return new CloudException(id, CloudException.Kind.UNAUTHORIZED, m, e);
      }
      if (m.startsWith("OOM") || m.startsWith("BUSY") || m.startsWith("LOADING")) {
        return new CloudException(id, CloudException.Kind.THROTTLED, m, e);
      }
    }
    return new CloudException(id, CloudException.Kind.OTHER, String.valueOf(e.getMessage()), e);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pool.shutdown();
    client.close();
  }

  @Override
  public String toString() {
    return "RedisCloud[" + id + ", prefix " + prefixText + "]";
  }

  /** Settings of a {@link RedisCloud}, validated by {@link #build()}. Not thread-safe. */
  public static final class Builder {
    private final String id;
    private final URI uri;
    private String prefix;
    private String passwordEnv;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration readTimeout = Duration.ofSeconds(30);
    private int threads = 8;

    private Builder(String id, URI uri) {
      this.id = id;
      this.uri = uri;
    }

    /** Every object name is stored under this prefix (default {@code rafestore:<id>:}). */
    public Builder prefix(String prefix) {
      this.prefix = prefix;
      return this;
    }

    /** Read the password from this environment variable instead of the URI. */
    public Builder passwordFromEnv(String variable) {
      this.passwordEnv = variable;
      return this;
    }

    /** TCP connect timeout (default 5 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** Socket read timeout (default 30 s). */
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = timeout;
      return this;
    }

    /** Concurrent calls (threads, default 8). */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /**
     * Builds the driver; connections are made lazily.
     *
     * @throws IllegalArgumentException naming the invalid setting
     */
    public RedisCloud build() {
      if (id == null || id.isBlank()) {
        throw new IllegalArgumentException("redis: id must not be blank");
      }
      if (uri == null || uri.getHost() == null || !"redis".equals(uri.getScheme())) {
        throw new IllegalArgumentException(
            "redis(" + id + "): uri must be redis://host:port, was " + uri);
      }
      if (prefix == null) {
        prefix = "rafestore:" + id + ":";
      }
      if (prefix.isEmpty()) {
        throw new IllegalArgumentException("redis(" + id + "): prefix must not be empty");
      }
      if (passwordEnv != null && System.getenv(passwordEnv) == null) {
        throw new IllegalArgumentException(
            "redis(" + id + "): environment variable " + passwordEnv + " is not set");
      }
      if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException("redis(" + id + "): connectTimeout must be positive");
      }
      if (readTimeout == null || readTimeout.isNegative() || readTimeout.isZero()) {
        throw new IllegalArgumentException("redis(" + id + "): readTimeout must be positive");
      }
      if (threads < 1 || threads > 256) {
        throw new IllegalArgumentException(
            "redis(" + id + "): threads must be 1 to 256, was " + threads);
      }
      return new RedisCloud(this);
    }
  }
}
