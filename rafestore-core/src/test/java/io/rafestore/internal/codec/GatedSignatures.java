package io.rafestore.internal.codec;

import java.security.Key;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A signer for tests: another's signatures, counted, and the first signature held until {@link
 * #open} so that logs can be made to wait for the signer.
 */
public final class GatedSignatures extends Signatures {
  private final Signatures inner;
  private final CountDownLatch gate = new CountDownLatch(1);
  private final CountDownLatch firstStarted = new CountDownLatch(1);
  private final AtomicInteger signs = new AtomicInteger();
  private final AtomicInteger verifies = new AtomicInteger();
  private volatile Runnable onSign = () -> {};

  public GatedSignatures(Signatures inner) {
    this.inner = inner;
  }

  /** Runs {@code hook} at the start of every signature, on the signing thread. */
  public void onSign(Runnable hook) {
    this.onSign = hook;
  }

  /** Lets the held signature (and every later one) go on. */
  public void open() {
    gate.countDown();
  }

  /** Waits until the first signature has started (and is held). */
  public void awaitFirst() throws InterruptedException {
    if (!firstStarted.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no signature started");
    }
  }

  public int signs() {
    return signs.get();
  }

  public int verifies() {
    return verifies.get();
  }

  @Override
  public byte[] sign(byte[] message, int length, PrivateKey key) {
    signs.incrementAndGet();
    onSign.run();
    firstStarted.countDown();
    try {
      if (!gate.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return inner.sign(message, length, key);
  }

  @Override
  public boolean verify(byte[] message, int length, byte[] signature, PublicKey key) {
    verifies.incrementAndGet();
    return inner.verify(message, length, signature, key);
  }

  @Override
  public void check(Key key) {
    inner.check(key);
  }
}
