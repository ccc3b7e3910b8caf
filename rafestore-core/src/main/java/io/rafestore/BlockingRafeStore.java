package io.rafestore;

import java.util.Optional;

/**
 * The blocking facade of a {@link RafeStore}: each method waits for the asynchronous operation and
 * throws its {@link RafeStoreException} unwrapped. If the calling thread is interrupted while
 * waiting, the operation is left to finish, the interrupt flag is restored and an {@link
 * java.io.InterruptedIOException} is thrown. Thread-safe.
 */
public interface BlockingRafeStore {
  /** See {@link RafeStore#write}. */
  WriteReceipt write(String key, byte[] value)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#writeBack}: returns once the write is durable in the local journal. */
  JournaledWrite writeBack(String key, byte[] value)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#flush}. */
  void flush() throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#read(String)}. */
  StoredValue read(String key) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#read(String, Version)}. */
  StoredValue read(String key, Version version)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#history}. */
  HistoryPage history(String key, Optional<Version> before, int limit)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#delete}. */
  void delete(String key) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#collect}. */
  CollectionReport collect(String key, RetentionPolicy policy)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#checkWriter}. */
  void checkWriter(String writerId) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#publishCertificate}. */
  void publishCertificate(WriterCertificate certificate)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#revocations}. */
  Optional<RevocationList> revocations(String operatorKeyId)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#publishRevocations}. */
  void publishRevocations(RevocationList list)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#collectOrphans}. */
  OrphanReport collectOrphans(String key, java.time.Duration grace)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#purge}. */
  java.util.Map<String, Integer> purge(String key)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#verify}. */
  VerifyReport verify(String key) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#repair}. */
  RepairReport repair(String key) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#keys}. */
  java.util.List<String> keys() throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#keys(String, int)}. */
  KeyPage keys(String after, int limit) throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#verifyAll}. */
  java.util.List<VerifyReport> verifyAll()
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#repairAll}. */
  java.util.List<RepairReport> repairAll()
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#read(String, Version, long, int)}. */
  byte[] read(String key, Version version, long offset, int length)
      throws RafeStoreException, java.io.InterruptedIOException;

  /**
   * Writes a new version of {@code key} from a stream of exactly {@code size} bytes, with bounded
   * memory: a value larger than {@link RafeStore.Builder#partSize} is read part by part, at most
   * {@link RafeStore.Builder#partsInFlight} parts ahead of the slowest upload, and its SHA-256
   * computed on the fly; the calling thread reads the stream. Nothing is visible to readers until
   * every part is on f+1 data clouds and the metadata is written. The stream is not closed. The
   * {@link RafeStore.Builder#operationTimeout} bounds the whole write.
   *
   * @throws IllegalArgumentException if the stream holds fewer or more than {@code size} bytes
   * @throws UnsupportedOperationException in {@link ProtocolMode#DEPSKY_A} and {@link
   *     ProtocolMode#DEPSKY_CA}, which handle each value whole in memory
   * @throws java.io.IOException if reading the stream fails, or the write fails ({@link
   *     RafeStoreException})
   */
  WriteReceipt write(String key, java.io.InputStream in, long size) throws java.io.IOException;

  /**
   * Opens the latest version of {@code key} as a stream that fetches parts lazily, at most {@link
   * RafeStore.Builder#partsInFlight} ahead of the reader, each verified against its signed hash
   * before any of its bytes are returned; the end of the stream is reported only after the whole
   * value's SHA-256 matched. Memory is bounded by about {@code partsInFlight x partSize}. The
   * stream is not thread-safe; close it to cancel fetches still running. Its reads fail with a
   * {@link RafeStoreException} (a part that does not arrive within the {@link
   * RafeStore.Builder#operationTimeout} included), or an {@link java.io.InterruptedIOException}
   * with the interrupt flag restored; a read after close throws a plain {@link
   * java.io.IOException}, as any closed stream does.
   */
  java.io.InputStream openStream(String key)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** As {@link #openStream(String)}, for one version. */
  java.io.InputStream openStream(String key, Version version)
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#probe}. */
  ProbeReport probe(ProbeOptions options) throws RafeStoreException, java.io.InterruptedIOException;
}
