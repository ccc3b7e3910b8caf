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

  /** See {@link RafeStore#verifyAll}. */
  java.util.List<VerifyReport> verifyAll()
      throws RafeStoreException, java.io.InterruptedIOException;

  /** See {@link RafeStore#repairAll}. */
  java.util.List<RepairReport> repairAll()
      throws RafeStoreException, java.io.InterruptedIOException;
}
