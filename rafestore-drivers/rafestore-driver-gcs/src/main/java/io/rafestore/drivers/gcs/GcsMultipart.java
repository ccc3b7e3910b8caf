package io.rafestore.drivers.gcs;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A parallel composite upload for {@link GcsCloud#multipart()}: each part is a temporary object
 * under {@value #TEMP_PREFIX}, complete composes them into the target (GCS composes at most 32
 * sources per request, so more parts are composed in a tree of intermediate temporaries) and then
 * deletes every temporary; abort deletes the parts put so far, and a part still uploading when
 * abort is called deletes itself when its put ends (whatever its outcome: a failed or cancelled put
 * may still have stored it), so an upload abandoned mid-flight leaves nothing behind.
 *
 * <p>The temporaries are ordinary objects, so they are visible to a listing of the whole bucket
 * (never under the target's name or RafeStore's {@code d/} and {@code m/} prefixes). A client that
 * crashes mid-upload leaves them behind: a lifecycle rule deleting objects under {@value
 * #TEMP_PREFIX} after a day is recommended. Composition copies no bytes through the client, and the
 * composed object appears whole.
 */
final class GcsMultipart implements Multipart {
  /** Where the temporaries live: outside the names RafeStore uses. */
  static final String TEMP_PREFIX = "rafestore-multipart/";

  static final int MAX_SOURCES = 32;

  /** A composite object counts at most 1,024 components (documented GCS limit). */
  static final int MAX_PARTS = 1024;

  static final long MAX_PART = 5L * 1024 * 1024 * 1024;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final GcsCloud cloud;
  private final Storage storage;
  private final String bucket;

  GcsMultipart(GcsCloud cloud, Storage storage, String bucket) {
    this.cloud = cloud;
    this.storage = storage;
    this.bucket = bucket;
  }

  @Override
  public long minPartSize() {
    return 1;
  }

  @Override
  public long maxPartSize() {
    return MAX_PART;
  }

  @Override
  public int maxParts() {
    return MAX_PARTS;
  }

  @Override
  public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    byte[] nonce = new byte[12];
    RANDOM.nextBytes(nonce);
    return CompletableFuture.completedFuture(new Upload(key, HexFormat.of().formatHex(nonce)));
  }

  private final class Upload implements MultipartUpload {
    private final ObjectKey key;
    private final String dir;

    /** Every part a put was started for: stored, still uploading, or failed (maybe stored). */
    private final Set<Integer> started = ConcurrentHashMap.newKeySet();

    private final Set<Integer> stored = ConcurrentHashMap.newKeySet();

    /**
     * Set by abort before it deletes {@link #started}. A put that ends afterwards deletes its own
     * part: either abort's deletes saw its index (it was added before the put began) and ran after
     * it landed, or the put sees this flag when it ends, so no part outlives an abort.
     */
    private volatile boolean aborted;

    Upload(ObjectKey key, String nonce) {
      this.key = key;
      this.dir = TEMP_PREFIX + nonce + "/";
    }

    private String partName(int index) {
      return dir + "p" + index;
    }

    @Override
    public ObjectKey key() {
      return key;
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      if (index < 0 || index >= MAX_PARTS) {
        return refused("part index " + index + " is outside 0.." + (MAX_PARTS - 1));
      }
      if (aborted) {
        return refused("part " + index + " of " + key + ": the upload was aborted");
      }
      started.add(index);
      CompletableFuture<Void> put = cloud.put(ObjectKey.of(partName(index)), data);
      // Cancelling the part cancels its request, as for any driver call.
      return Futures.relayOutcome(
          put,
          (x, e) -> {
            if (!aborted) {
              if (e != null) {
                return CompletableFuture.<Void>failedFuture(e);
              }
              stored.add(index);
              return CompletableFuture.<Void>completedFuture(null);
            }
            // Aborted while this part was uploading: abort's deletes may have run before it
            // landed, so it deletes itself before the caller hears of it.
            return cloud
                .call(
                    () -> {
                      deleteQuietly(partName(index));
                      return null;
                    })
                .handle((y, e2) -> null)
                .thenCompose(
                    y -> refused("part " + index + " of " + key + ": the upload was aborted"));
          });
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      if (count < 1 || count > MAX_PARTS) {
        return refused("part count " + count + " is outside 1.." + MAX_PARTS);
      }
      if (aborted) {
        return refused(key + ": the upload was aborted");
      }
      for (int i = 0; i < count; i++) {
        if (!stored.contains(i)) {
          return refused("part " + i + " of " + key + " was never uploaded");
        }
      }
      List<String> created = new ArrayList<>();
      return cloud.call(
          () -> {
            try {
              List<String> level = new ArrayList<>();
              for (int i = 0; i < count; i++) {
                level.add(partName(i));
              }
              int round = 0;
              // Compose groups of 32 into intermediates until one request can make the target.
              while (level.size() > MAX_SOURCES) {
                List<String> next = new ArrayList<>();
                for (int from = 0; from < level.size(); from += MAX_SOURCES) {
                  List<String> group =
                      level.subList(from, Math.min(level.size(), from + MAX_SOURCES));
                  String name = dir + "c" + round + "-" + (from / MAX_SOURCES);
                  compose(group, name);
                  created.add(name);
                  next.add(name);
                }
                level = next;
                round++;
              }
              compose(level, key.value());
              return null;
            } finally {
              // Done or failed, the temporaries are of no further use; the caller sees the
              // outcome only once they are gone, so nothing is left behind a completed upload.
              deleteNow(created);
            }
          });
    }

    private void compose(List<String> sources, String target) {
      Storage.ComposeRequest.Builder b = Storage.ComposeRequest.newBuilder();
      for (String s : sources) {
        b.addSource(s);
      }
      b.setTarget(BlobInfo.newBuilder(BlobId.of(bucket, target)).build());
      storage.compose(b.build());
    }

    /**
     * Deletes every part a put was started for and {@code intermediates}, best effort (deleting a
     * part that was never stored costs one request and changes nothing). Runs on the driver's pool.
     */
    private void deleteNow(List<String> intermediates) {
      List<String> names = new ArrayList<>(intermediates);
      for (int i : started) {
        names.add(partName(i));
      }
      names.forEach(this::deleteQuietly);
      started.clear();
      stored.clear();
    }

    private void deleteQuietly(String name) {
      try {
        storage.delete(BlobId.of(bucket, name));
      } catch (RuntimeException e) {
        // Left for the bucket's lifecycle rule (see the class comment).
      }
    }

    @Override
    public CompletableFuture<Void> abort() {
      aborted = true;
      return cloud.call(
          () -> {
            deleteNow(List.of());
            return null;
          });
    }

    private CompletableFuture<Void> refused(String message) {
      return CompletableFuture.failedFuture(new CloudException(cloud.id(), Kind.OTHER, message));
    }
  }
}
