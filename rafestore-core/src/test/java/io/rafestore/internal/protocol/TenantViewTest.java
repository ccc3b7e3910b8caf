package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.Fairness;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.fairness.TenantDoor;
import io.rafestore.internal.protocol.selection.MeasuredCloud;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A tenant's view from the inside: it shares the client's per-key state (own logs, key tails,
 * incarnation), so views never fork a writer's log; with fairness off the client's own drivers are
 * exactly as without tenants (no door); with it on, every context goes through a door.
 */
class TenantViewTest {
  private final VirtualScheduler clock = new VirtualScheduler();

  private Client client(Fairness fairness) {
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("alice", SigningKeys.generate())
            .scheduler(clock)
            .executor(Runnable::run)
            .fairness(fairness);
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    return (Client) b.build();
  }

  @Test
  void aViewSharesTheClientsKeyState() throws Exception {
    try (Client c = client(Fairness.off())) {
      Client view = (Client) c.forTenant("a");
      Context root = c.contextForTests();
      Context v = view.contextForTests();
      assertThat(v).isNotSameAs(root);
      assertThat(v.tenant).isEqualTo("a");
      clock.runUntilDone(view.write("k", new byte[] {1}));
      assertThat(root.ownLog("k")).as("the view's write is the client's own log").isNotNull();
      assertThat(v.ownLog("k")).isSameAs(root.ownLog("k"));
      assertThat(v.incarnation()).isEqualTo(root.incarnation());
      // One key tail: the client's next metadata section of a key waits for the view's.
      CompletableFuture<Void> first = new CompletableFuture<>();
      CompletableFuture<Void> turn = v.enterKey("q", first);
      assertThat(turn).isDone();
      CompletableFuture<Void> second = new CompletableFuture<>();
      CompletableFuture<Void> next = root.enterKey("q", second);
      assertThat(next).as("the client waits for the view's section of the key").isNotDone();
      first.complete(null);
      assertThat(next).isDone();
      second.complete(null);
      v.renewIncarnation();
      assertThat(root.incarnation()).isEqualTo(v.incarnation());
    }
  }

  @Test
  void theListenerSeesEachOperationsTenant() throws Exception {
    java.util.List<io.rafestore.OperationReceipt> ops =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("alice", SigningKeys.generate())
            .scheduler(clock)
            .executor(Runnable::run)
            .fairness(Fairness.on())
            .listener(
                new io.rafestore.RafeStoreListener() {
                  @Override
                  public void operationCompleted(io.rafestore.OperationReceipt receipt) {
                    ops.add(receipt);
                  }
                });
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    try (RafeStore c = b.build()) {
      RafeStore web = c.forTenant("web");
      clock.runUntilDone(web.write("k", new byte[] {1}));
      clock.runUntilDone(web.read("k"));
      clock.runUntilDone(c.read("k"));
    }
    assertThat(ops)
        .extracting(io.rafestore.OperationReceipt::tenant)
        .containsExactly("web", "web", "default");
    assertThat(ops)
        .extracting(io.rafestore.OperationReceipt::kind)
        .containsExactly(
            io.rafestore.OperationReceipt.Kind.WRITE,
            io.rafestore.OperationReceipt.Kind.READ,
            io.rafestore.OperationReceipt.Kind.READ);
  }

  @Test
  void fairnessOffAddsNothingToTheClientsDrivers() {
    try (Client c = client(Fairness.off())) {
      for (Cloud cloud : c.contextForTests().clouds) {
        assertThat(cloud.driver()).isInstanceOf(MeasuredCloud.class);
      }
      for (Cloud cloud : ((Client) c.forTenant("a")).contextForTests().clouds) {
        assertThat(cloud.driver()).isInstanceOf(TenantDoor.class);
        assertThat(((TenantDoor) cloud.driver()).queues()).isFalse();
      }
    }
  }

  @Test
  void fairnessOnPutsEveryContextBehindADoor() {
    try (Client c = client(Fairness.on())) {
      for (Cloud cloud : c.contextForTests().clouds) {
        assertThat(cloud.driver()).isInstanceOf(TenantDoor.class);
        assertThat(((TenantDoor) cloud.driver()).queues()).isTrue();
        assertThat(((TenantDoor) cloud.driver()).tenant()).isEqualTo("default");
      }
      for (Cloud cloud : ((Client) c.forTenant("a")).contextForTests().clouds) {
        assertThat(((TenantDoor) cloud.driver()).tenant()).isEqualTo("a");
        assertThat(((TenantDoor) cloud.driver()).queues()).isTrue();
      }
    }
  }
}
