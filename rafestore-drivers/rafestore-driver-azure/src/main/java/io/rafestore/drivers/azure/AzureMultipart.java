package io.rafestore.drivers.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerAsyncClient;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * Azure's native multipart upload for {@link AzureBlobCloud#multipart()}: each part is a staged
 * block (Put Block) of the block blob, and complete commits the block list (Put Block List), which
 * replaces the blob whole and atomically. Block ids are base64 of {@code <upload nonce>-<index>}
 * with a fixed-width index, since Azure wants every block id of a blob to have the same length and
 * two uploads to one name must not pick up each other's blocks.
 *
 * <p>Azure has no minimum block size, allows 50,000 blocks and 4,000 MiB per block. There is no
 * call that discards uncommitted blocks: {@link MultipartUpload#abort()} only forgets the upload,
 * and the service discards uncommitted blocks by itself (after a week, or at the blob's next
 * commit). They are never visible as, or in, a blob.
 */
final class AzureMultipart implements Multipart {
  static final int MAX_BLOCKS = 50_000;
  static final long MAX_BLOCK = 4000L * 1024 * 1024;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final AzureBlobCloud cloud;
  private final BlobContainerAsyncClient container;

  AzureMultipart(AzureBlobCloud cloud, BlobContainerAsyncClient container) {
    this.cloud = cloud;
    this.container = container;
  }

  @Override
  public long minPartSize() {
    return 1;
  }

  @Override
  public long maxPartSize() {
    return MAX_BLOCK;
  }

  @Override
  public int maxParts() {
    return MAX_BLOCKS;
  }

  @Override
  public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    byte[] nonce = new byte[6];
    RANDOM.nextBytes(nonce);
    // Nothing to ask the service: blocks are staged against the blob name directly.
    return cloud
        .call(Mono.just(0))
        .thenApply(x -> new Upload(key, HexFormat.of().formatHex(nonce)));
  }

  private final class Upload implements MultipartUpload {
    private final ObjectKey key;
    private final String nonce;
    private final Set<Integer> staged = ConcurrentHashMap.newKeySet();
    private volatile boolean ended;

    Upload(ObjectKey key, String nonce) {
      this.key = key;
      this.nonce = nonce;
    }

    String blockId(int index) {
      String plain = nonce + "-" + String.format("%05d", index);
      return Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public ObjectKey key() {
      return key;
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      if (index < 0 || index >= MAX_BLOCKS) {
        return refused("part index " + index + " is outside 0.." + (MAX_BLOCKS - 1));
      }
      // No size check against MAX_BLOCK: a Java array cannot reach Azure's 4000 MiB.
      if (ended) {
        return refused("upload of " + key + " has ended");
      }
      BinaryData body = BinaryData.fromBytes(data.clone());
      Mono<Void> stage =
          Mono.defer(
              () ->
                  container
                      .getBlobAsyncClient(key.value())
                      .getBlockBlobAsyncClient()
                      .stageBlock(blockId(index), body));
      return cloud
          .call(
              stage.onErrorResume(
                  AzureBlobCloud::isContainerMissing,
                  e -> container.createIfNotExists().then(stage)))
          .thenApply(
              x -> {
                staged.add(index);
                return null;
              });
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      if (count < 1 || count > MAX_BLOCKS) {
        return refused("part count " + count + " is outside 1.." + MAX_BLOCKS);
      }
      List<String> ids = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        if (!staged.contains(i)) {
          return refused("part " + i + " of " + key + " was never uploaded");
        }
        ids.add(blockId(i));
      }
      return cloud
          .call(
              container
                  .getBlobAsyncClient(key.value())
                  .getBlockBlobAsyncClient()
                  .commitBlockList(ids, true)
                  .then())
          .thenApply(
              x -> {
                ended = true;
                return null;
              });
    }

    @Override
    public CompletableFuture<Void> abort() {
      // Uncommitted blocks cannot be deleted through the API; they are invisible and the service
      // drops them (see the class comment). Later parts of this upload are refused.
      ended = true;
      return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Void> refused(String message) {
      return CompletableFuture.failedFuture(new CloudException(cloud.id(), Kind.OTHER, message));
    }
  }
}
