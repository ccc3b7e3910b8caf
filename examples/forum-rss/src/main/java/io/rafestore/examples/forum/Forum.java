package io.rafestore.examples.forum;

import io.rafestore.HistoryPage;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import java.io.InterruptedIOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The forum kept in a {@link RafeStore}, without HTTP.
 *
 * <p><b>Layout.</b> A topic is the key {@code forum/topics/<id>}; each post is a new version of it
 * (a blind write of a {@link Post}), so posting never reads or rewrites the topic and two people
 * posting at once both get their post listed, in one order every reader sees. The topic list is the
 * key {@value #INDEX_KEY}, whose versions are topic creations ({@link TopicEntry}). It is a log,
 * not one value holding the list, on purpose: keeping "the list" as a value would mean read, add,
 * write, and two servers creating topics at once would each write a list without the other's topic,
 * losing it. Appending a version is a blind write, and RafeStore keeps every completed one. The
 * index entry is written before the topic's first post, so a crash in between leaves an empty
 * topic, never posts nobody can find.
 *
 * <p><b>Caches.</b> A version's bytes never change (its SHA-256 is in signed metadata), so the
 * store's read tier keeps them ({@code RafeStore.Builder.valueCache}): a page view reads each
 * version it shows by its version, from the cache when it is there (no cloud asked; the bytes
 * checked against the signed hash again), and each post shows where its bytes came from. Receipts
 * of writes made by this process are kept (bounded) for the status panel; posts by other processes
 * have none.
 *
 * <p>Thread-safe.
 */
final class Forum {
  static final String INDEX_KEY = "forum/index";
  static final String TOPIC_PREFIX = "forum/topics/";

  /** RafeStore lists at most this many versions per history call. */
  private static final int HISTORY_PAGE = 10_000;

  private static final int CACHE_ENTRIES = 20_000;

  /** Timelines of the most recent posts written here; older posts show none. */
  static final int TIMELINES = 200;

  private static final int SUFFIX_CHARS = 6;
  private static final String SUFFIX_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

  private final RafeStore store;
  private final RafeStore readBack;
  private final Duration timeout;
  private final SecureRandom random = new SecureRandom();
  private final Map<VersionKey, WriteReceipt> receipts = lru(CACHE_ENTRIES);
  private final Optional<RequestRecorder> recorder;
  private final Map<VersionKey, Timeline> timelines = lru(TIMELINES);

  /** Writes of one key are serialised, so a write's capture holds only its own puts. */
  private final Object[] writeLocks = new Object[64];

  /** A topic in the list. */
  record TopicSummary(TopicEntry entry, int posts, Optional<Instant> lastPost) {}

  /**
   * One post on a topic page.
   *
   * @param number 1 for the oldest post of the topic
   * @param info what the signed metadata says (version, holders, time)
   * @param post the decoded post, or empty if the value could not be read or is not a post
   * @param problem why {@code post} is empty
   * @param receipt the write's receipt if this process wrote it
   * @param timeline the write's requests per cloud if this process wrote it recently
   */
  record PostView(
      int number,
      VersionInfo info,
      Optional<Post> post,
      String problem,
      Optional<WriteReceipt> receipt,
      Optional<Timeline> timeline,
      String servedBy) {
    /** Whether this page view read the post's bytes from the store's cache. */
    boolean fromCache() {
      return StoredValue.FROM_CACHE.equals(servedBy);
    }
  }

  /** The newest post of a topic read back with no cache: its bytes, where they came from. */
  record ReadBack(StoredValue value, String sha256Hex, Optional<Post> post, String problem) {}

  /** A topic page: posts oldest first; {@code total} counts posts not shown too. */
  record TopicView(TopicEntry entry, List<PostView> posts, int total) {}

  private record VersionKey(String key, Version version) {}

  Forum(RafeStore store, Duration timeout) {
    this(store, timeout, Optional.empty());
  }

  /**
   * @param recorder records the store's requests (the clouds must be wrapped by it); posts written
   *     here then carry a {@link Timeline}
   */
  Forum(RafeStore store, Duration timeout, Optional<RequestRecorder> recorder) {
    this(store, timeout, recorder, store);
  }

  /**
   * @param readBack the client the faults page reads back through (one with no cache, so that what
   *     the clouds answer is seen)
   */
  Forum(RafeStore store, Duration timeout, Optional<RequestRecorder> recorder, RafeStore readBack) {
    this.readBack = Objects.requireNonNull(readBack, "readBack");
    this.store = Objects.requireNonNull(store, "store");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    for (int i = 0; i < writeLocks.length; i++) {
      writeLocks[i] = new Object();
    }
  }

  /** Ids of the clouds the store uses; every one holds metadata (the signed logs). */
  List<String> clouds() {
    return List.copyOf(store.stats().keySet());
  }

  /** f, for the status panel. */
  int faultsTolerated() {
    return store.faultsTolerated();
  }

  static String topicKey(String id) {
    return TOPIC_PREFIX + id;
  }

  /** Every topic, the newest first, with its post count and last post time. */
  List<TopicSummary> topics() throws RafeStoreException, InterruptedIOException {
    List<TopicEntry> entries = new ArrayList<>(index().values());
    Collections.reverse(entries);
    List<CompletableFuture<List<VersionInfo>>> histories = new ArrayList<>();
    for (TopicEntry e : entries) {
      histories.add(fullHistory(topicKey(e.id())));
    }
    List<TopicSummary> out = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      List<VersionInfo> h = await(histories.get(i));
      out.add(
          new TopicSummary(
              entries.get(i),
              h.size(),
              h.isEmpty() ? Optional.empty() : Optional.of(h.get(0).createdAt())));
    }
    return out;
  }

  /** The topic with this id, if the index has it. */
  Optional<TopicEntry> topic(String id) throws RafeStoreException, InterruptedIOException {
    return Optional.ofNullable(index().get(id));
  }

  /** A topic with up to its {@code maxPosts} newest posts, oldest first. */
  Optional<TopicView> topicView(String id, int maxPosts)
      throws RafeStoreException, InterruptedIOException {
    Optional<TopicEntry> entry = topic(id);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    String key = topicKey(id);
    List<VersionInfo> newestFirst = await(fullHistory(key));
    int total = newestFirst.size();
    List<VersionInfo> shown = new ArrayList<>(newestFirst.subList(0, Math.min(maxPosts, total)));
    Collections.reverse(shown);
    List<CompletableFuture<Decoded>> reads = new ArrayList<>();
    for (VersionInfo info : shown) {
      reads.add(decoded(key, info.version(), Post::decode));
    }
    List<PostView> posts = new ArrayList<>();
    for (int i = 0; i < shown.size(); i++) {
      VersionInfo info = shown.get(i);
      int number = total - shown.size() + i + 1;
      Decoded read = awaitValue(reads.get(i));
      Object value = read.value();
      Optional<WriteReceipt> receipt = receipt(key, info.version());
      Optional<Timeline> timeline;
      synchronized (timelines) {
        timeline = Optional.ofNullable(timelines.get(new VersionKey(key, info.version())));
      }
      if (value instanceof Post p) {
        posts.add(
            new PostView(number, info, Optional.of(p), "", receipt, timeline, read.servedBy()));
      } else {
        posts.add(
            new PostView(
                number,
                info,
                Optional.empty(),
                (String) value,
                receipt,
                timeline,
                read.servedBy()));
      }
    }
    return Optional.of(new TopicView(entry.get(), posts, total));
  }

  /**
   * Creates a topic with a fresh id made from the title, then writes its first post.
   *
   * @return the new topic
   */
  TopicEntry createTopic(String title, Post first)
      throws RafeStoreException, InterruptedIOException {
    return createTopic(newId(title, random), title, first);
  }

  /** Creates a topic with the given (valid) id, then writes its first post. */
  TopicEntry createTopic(String id, String title, Post first)
      throws RafeStoreException, InterruptedIOException {
    TopicEntry entry = new TopicEntry(id, title);
    WriteReceipt r = store.blocking().write(INDEX_KEY, entry.encode());
    post(entry, first);
    return entry;
  }

  /** Adds {@code post} to the topic as a new version (a blind write). */
  WriteReceipt post(TopicEntry topic, Post post) throws RafeStoreException, InterruptedIOException {
    String key = topicKey(topic.id());
    WriteReceipt r;
    synchronized (writeLocks[Math.floorMod(key.hashCode(), writeLocks.length)]) {
      Optional<RequestRecorder.Capture> capture = recorder.map(rec -> rec.capture(key));
      try {
        r = store.blocking().write(key, post.encode());
      } finally {
        capture.ifPresent(RequestRecorder.Capture::close);
      }
      if (capture.isPresent()) {
        Timeline t = new Timeline(clouds(), capture.get(), r);
        synchronized (timelines) {
          timelines.put(new VersionKey(key, r.version()), t);
        }
      }
    }
    synchronized (receipts) {
      receipts.put(new VersionKey(key, r.version()), r);
    }
    return r;
  }

  /**
   * Reads the newest post of a topic straight from the store (no cache), for the faults page: the
   * bytes are verified against the signed SHA-256 by the store, and their hash is shown.
   *
   * @return empty if the topic is unknown or has no post
   */
  Optional<ReadBack> readNewest(String id) throws RafeStoreException, InterruptedIOException {
    if (topic(id).isEmpty()) {
      return Optional.empty();
    }
    StoredValue v;
    try {
      v = await(readBack.read(topicKey(id)));
    } catch (io.rafestore.KeyNotFoundException e) {
      return Optional.empty();
    }
    String hex;
    try {
      hex =
          java.util.HexFormat.of()
              .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(v.value()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
    try {
      return Optional.of(new ReadBack(v, hex, Optional.of(Post.decode(v.value())), ""));
    } catch (IllegalArgumentException e) {
      return Optional.of(new ReadBack(v, hex, Optional.empty(), "unreadable: " + e.getMessage()));
    }
  }

  /** Whether the store answers (a metadata read of the index). */
  void check() throws RafeStoreException, InterruptedIOException {
    await(store.history(INDEX_KEY, Optional.empty(), 1));
  }

  private Optional<WriteReceipt> receipt(String key, Version version) {
    synchronized (receipts) {
      return Optional.ofNullable(receipts.get(new VersionKey(key, version)));
    }
  }

  /**
   * Index entries by topic id, in creation order. If two creations share an id (only possible with
   * a hand-written entry, since ids carry a random suffix), the older one's title wins.
   */
  private Map<String, TopicEntry> index() throws RafeStoreException, InterruptedIOException {
    List<VersionInfo> versions = new ArrayList<>(await(fullHistory(INDEX_KEY)));
    Collections.reverse(versions);
    List<CompletableFuture<Decoded>> reads = new ArrayList<>();
    for (VersionInfo v : versions) {
      reads.add(decoded(INDEX_KEY, v.version(), TopicEntry::decode));
    }
    Map<String, TopicEntry> byId = new LinkedHashMap<>();
    for (CompletableFuture<Decoded> read : reads) {
      if (awaitValue(read).value() instanceof TopicEntry e) {
        byId.putIfAbsent(e.id(), e);
      }
    }
    return byId;
  }

  /** All versions of {@code key}, newest first. */
  private CompletableFuture<List<VersionInfo>> fullHistory(String key) {
    return historyFrom(key, Optional.empty(), new ArrayList<>());
  }

  private CompletableFuture<List<VersionInfo>> historyFrom(
      String key, Optional<Version> before, List<VersionInfo> acc) {
    return store
        .history(key, before, HISTORY_PAGE)
        .thenCompose(
            (HistoryPage page) -> {
              acc.addAll(page.versions());
              return page.nextBefore().isPresent()
                  ? historyFrom(key, page.nextBefore(), acc)
                  : CompletableFuture.completedFuture(acc);
            });
  }

  /** Reading and decoding failures (of one version) are reported as a String, not thrown. */
  private interface Decoder {
    Object decode(byte[] value);
  }

  /** A version read and decoded (or the problem, as a String), and where its bytes came from. */
  record Decoded(Object value, String servedBy) {}

  private CompletableFuture<Decoded> decoded(String key, Version version, Decoder decoder) {
    return store
        .read(key, version)
        .handle(
            (StoredValue v, Throwable failure) -> {
              if (failure != null) {
                Throwable cause = unwrap(failure);
                return new Decoded("could not be read: " + cause.getMessage(), "");
              }
              try {
                return new Decoded(decoder.decode(v.value()), v.servedBy());
              } catch (IllegalArgumentException e) {
                return new Decoded("unreadable: " + e.getMessage(), v.servedBy());
              }
            });
  }

  private Decoded awaitValue(CompletableFuture<Decoded> f) throws InterruptedIOException {
    try {
      return await(f);
    } catch (RafeStoreException e) {
      // Not reached: decoded() never fails.
      return new Decoded("could not be read: " + e.getMessage(), "");
    }
  }

  /** Waits for {@code f} at most the forum's timeout, unwrapping RafeStore's failures. */
  private <T> T await(CompletableFuture<T> f) throws RafeStoreException, InterruptedIOException {
    try {
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the store");
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new StoreTimeout("the store did not answer within " + timeout.toSeconds() + " s");
    } catch (ExecutionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RafeStoreException r) {
        throw r;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(cause);
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof ExecutionException
            || t instanceof java.util.concurrent.CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** A slug of the title (a-z, 0-9, '-') and a random suffix, so ids never collide in practice. */
  static String newId(String title, java.util.Random random) {
    StringBuilder slug = new StringBuilder();
    for (char c : title.toLowerCase(Locale.ROOT).toCharArray()) {
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        slug.append(c);
      } else if (slug.length() > 0 && slug.charAt(slug.length() - 1) != '-') {
        slug.append('-');
      }
      if (slug.length() >= 40) {
        break;
      }
    }
    while (slug.length() > 0 && slug.charAt(slug.length() - 1) == '-') {
      slug.setLength(slug.length() - 1);
    }
    if (slug.length() == 0) {
      slug.append("topic");
    }
    slug.append('-');
    for (int i = 0; i < SUFFIX_CHARS; i++) {
      slug.append(SUFFIX_ALPHABET.charAt(random.nextInt(SUFFIX_ALPHABET.length())));
    }
    return slug.toString();
  }

  /** Thrown when the store does not answer within the forum's timeout. */
  static final class StoreTimeout extends RafeStoreException {
    private static final long serialVersionUID = 1L;

    StoreTimeout(String message) {
      super(message);
    }
  }

  private static <K, V> Map<K, V> lru(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > max;
      }
    };
  }
}
