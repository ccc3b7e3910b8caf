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
}
