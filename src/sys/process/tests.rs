use super::*;

#[test]
fn one_malloc_arena_is_set_on_glibc_unless_the_environment_chose() {
    let chosen = std::env::var_os("MALLOC_ARENA_MAX").is_some();
    assert_eq!(one_malloc_arena(), cfg!(target_env = "gnu") && !chosen);
}
