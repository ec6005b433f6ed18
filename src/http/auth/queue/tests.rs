use super::*;

async fn entered(q: &Arc<Queue>, rank: u32) -> tokio::task::JoinHandle<Option<Slot>> {
    let q = Arc::clone(q);
    let h = tokio::spawn(async move { q.enter(rank).await });
    tokio::task::yield_now().await;
    h
}

fn waiting(q: &Queue) -> usize {
    q.lock().waiting.len()
}

#[tokio::test]
async fn at_most_two_run_and_the_rest_wait_in_rank_order() {
    let q = Arc::new(Queue::default());
    let first = q.enter(5).await.unwrap();
    let second = q.enter(5).await.unwrap();
    let failing = entered(&q, 3).await;
    let fresh = entered(&q, 0).await;
    assert_eq!(waiting(&q), 2);
    drop(first);
    // The fresh client (no failures) goes before the one that arrived first.
    let slot = fresh.await.unwrap().expect("fresh client got no slot");
    assert!(!failing.is_finished());
    drop(second);
    let other = failing.await.unwrap().expect("failing client got no slot");
    drop((slot, other));
    assert_eq!(q.lock().running, 0);
}

#[tokio::test]
async fn a_full_queue_refuses_worse_newcomers_and_gives_way_to_better_ones() {
    let q = Arc::new(Queue::default());
    let running = [q.enter(0).await.unwrap(), q.enter(0).await.unwrap()];
    let mut waiters = Vec::new();
    for _ in 0..WAITING {
        waiters.push(entered(&q, 4).await);
    }
    assert_eq!(waiting(&q), WAITING);
    let past = tokio::time::timeout(std::time::Duration::from_secs(1), q.enter(4)).await;
    assert!(past.expect("the queue grew past its bound").is_none());
    assert!(q.enter(9).await.is_none());
    // A fresh client pushes out the last of the failing ones.
    let fresh = entered(&q, 0).await;
    assert_eq!(waiting(&q), WAITING);
    let pushed = waiters.pop().unwrap().await.unwrap();
    assert!(pushed.is_none(), "the pushed-out waiter was not told");
    drop(running);
    assert!(fresh.await.unwrap().is_some());
}

#[tokio::test]
async fn a_waiter_that_goes_away_leaves_the_queue_and_its_turn_passes_on() {
    let q = Arc::new(Queue::default());
    let running = [q.enter(0).await.unwrap(), q.enter(0).await.unwrap()];
    let gone = entered(&q, 0).await;
    let next = entered(&q, 0).await;
    gone.abort();
    let _ = gone.await;
    assert_eq!(waiting(&q), 1);
    drop(running);
    let slot = next.await.unwrap().expect("the turn was lost");
    drop(slot);
    assert_eq!(q.lock().running, 0);
}
