// SPDX-License-Identifier: LGPL-2.1
/*
 * The names of the event types kmtrace knows: tracefs system and event
 * name per enum kmt_event_type. Shared by the recorder (which events to
 * enable) and decode (which format to read), so it lives below both.
 */
#include <stdio.h>
#include <string.h>

#include <kmtrace/event.h>

static const char *const names[KMT_EV_NR][2] = {
	[KMT_EV_KMALLOC] = { "kmem", "kmalloc" },
	[KMT_EV_KMALLOC_NODE] = { "kmem", "kmalloc_node" },
	[KMT_EV_KFREE] = { "kmem", "kfree" },
	[KMT_EV_CACHE_ALLOC] = { "kmem", "kmem_cache_alloc" },
	[KMT_EV_CACHE_ALLOC_NODE] = { "kmem", "kmem_cache_alloc_node" },
	[KMT_EV_CACHE_FREE] = { "kmem", "kmem_cache_free" },
	[KMT_EV_PAGE_ALLOC] = { "kmem", "mm_page_alloc" },
	[KMT_EV_PAGE_FREE] = { "kmem", "mm_page_free" },
	[KMT_EV_PAGE_FREE_BATCHED] = { "kmem", "mm_page_free_batched" },
	[KMT_EV_PAGE_ALLOC_EXTFRAG] = { "kmem", "mm_page_alloc_extfrag" },
	[KMT_EV_PAGE_ALLOC_ZONE_LOCKED] = { "kmem", "mm_page_alloc_zone_locked" },
	[KMT_EV_PAGE_PCPU_DRAIN] = { "kmem", "mm_page_pcpu_drain" },
	[KMT_EV_RSS_STAT] = { "kmem", "rss_stat" },
	[KMT_EV_FAULT_USER] = { "exceptions", "page_fault_user" },
	[KMT_EV_FAULT_KERNEL] = { "exceptions", "page_fault_kernel" },
	[KMT_EV_OOM_VICTIM] = { "oom", "mark_victim" },
	[KMT_EV_FORK] = { "sched", "sched_process_fork" },
	[KMT_EV_EXEC] = { "sched", "sched_process_exec" },
	[KMT_EV_EXIT] = { "sched", "sched_process_exit" },
	[KMT_EV_FAULT_RETURN] = { "kmtrace", "fault_return" },
	[KMT_EV_MMAP_ENTER] = { "syscalls", "sys_enter_mmap" },
	[KMT_EV_MMAP_EXIT] = { "syscalls", "sys_exit_mmap" },
	[KMT_EV_MUNMAP_ENTER] = { "syscalls", "sys_enter_munmap" },
	[KMT_EV_MUNMAP_EXIT] = { "syscalls", "sys_exit_munmap" },
	[KMT_EV_MREMAP_ENTER] = { "syscalls", "sys_enter_mremap" },
	[KMT_EV_MREMAP_EXIT] = { "syscalls", "sys_exit_mremap" },
	[KMT_EV_BRK_ENTER] = { "syscalls", "sys_enter_brk" },
	[KMT_EV_BRK_EXIT] = { "syscalls", "sys_exit_brk" },
	[KMT_EV_U_CALL] = { "kmtrace_user", "call" },
	[KMT_EV_U_RETURN] = { "kmtrace_user", "return" },
	[KMT_EV_U_SAMPLE] = { "ftrace", "raw_data" },
	[KMT_EV_DIRECT_RECLAIM_BEGIN] = { "vmscan", "mm_vmscan_direct_reclaim_begin" },
	[KMT_EV_DIRECT_RECLAIM_END] = { "vmscan", "mm_vmscan_direct_reclaim_end" },
	[KMT_EV_MEMCG_RECLAIM_BEGIN] = { "vmscan", "mm_vmscan_memcg_reclaim_begin" },
	[KMT_EV_MEMCG_RECLAIM_END] = { "vmscan", "mm_vmscan_memcg_reclaim_end" },
	[KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_BEGIN] = { "vmscan", "mm_vmscan_memcg_softlimit_reclaim_begin" },
	[KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_END] = { "vmscan", "mm_vmscan_memcg_softlimit_reclaim_end" },
	[KMT_EV_NODE_RECLAIM_BEGIN] = { "vmscan", "mm_vmscan_node_reclaim_begin" },
	[KMT_EV_NODE_RECLAIM_END] = { "vmscan", "mm_vmscan_node_reclaim_end" },
	[KMT_EV_KSWAPD_WAKE] = { "vmscan", "mm_vmscan_kswapd_wake" },
	[KMT_EV_KSWAPD_SLEEP] = { "vmscan", "mm_vmscan_kswapd_sleep" },
	[KMT_EV_WAKEUP_KSWAPD] = { "vmscan", "mm_vmscan_wakeup_kswapd" },
	[KMT_EV_LRU_ISOLATE] = { "vmscan", "mm_vmscan_lru_isolate" },
	[KMT_EV_LRU_SHRINK_ACTIVE] = { "vmscan", "mm_vmscan_lru_shrink_active" },
	[KMT_EV_LRU_SHRINK_INACTIVE] = { "vmscan", "mm_vmscan_lru_shrink_inactive" },
	[KMT_EV_RECLAIM_PAGES] = { "vmscan", "mm_vmscan_reclaim_pages" },
	[KMT_EV_RECLAIM_THROTTLED] = { "vmscan", "mm_vmscan_throttled" },
	[KMT_EV_RECLAIM_WRITE_FOLIO] = { "vmscan", "mm_vmscan_write_folio" },
	[KMT_EV_SHRINK_SLAB_START] = { "vmscan", "mm_shrink_slab_start" },
	[KMT_EV_SHRINK_SLAB_END] = { "vmscan", "mm_shrink_slab_end" },
	[KMT_EV_COMPACTION_BEGIN] = { "compaction", "mm_compaction_begin" },
	[KMT_EV_COMPACTION_END] = { "compaction", "mm_compaction_end" },
	[KMT_EV_COMPACTION_TRY] = { "compaction", "mm_compaction_try_to_compact_pages" },
	[KMT_EV_COMPACTION_SUITABLE] = { "compaction", "mm_compaction_suitable" },
	[KMT_EV_COMPACTION_FINISHED] = { "compaction", "mm_compaction_finished" },
	[KMT_EV_COMPACTION_DEFERRED] = { "compaction", "mm_compaction_deferred" },
	[KMT_EV_COMPACTION_DEFER] = { "compaction", "mm_compaction_defer_compaction" },
	[KMT_EV_COMPACTION_DEFER_RESET] = { "compaction", "mm_compaction_defer_reset" },
	[KMT_EV_COMPACTION_ISOLATE_MIGRATE] = { "compaction", "mm_compaction_isolate_migratepages" },
	[KMT_EV_COMPACTION_ISOLATE_FREE] = { "compaction", "mm_compaction_isolate_freepages" },
	[KMT_EV_COMPACTION_FAST_ISOLATE_FREE] = { "compaction", "mm_compaction_fast_isolate_freepages" },
	[KMT_EV_COMPACTION_MIGRATE] = { "compaction", "mm_compaction_migratepages" },
	[KMT_EV_KCOMPACTD_WAKE] = { "compaction", "mm_compaction_kcompactd_wake" },
	[KMT_EV_KCOMPACTD_SLEEP] = { "compaction", "mm_compaction_kcompactd_sleep" },
	[KMT_EV_WAKEUP_KCOMPACTD] = { "compaction", "mm_compaction_wakeup_kcompactd" },
	[KMT_EV_VMAP_ALLOC] = { "vmalloc", "alloc_vmap_area" },
	[KMT_EV_VMAP_FREE] = { "vmalloc", "free_vmap_area_noflush" },
	[KMT_EV_VMAP_PURGE] = { "vmalloc", "purge_vmap_area_lazy" },
	[KMT_EV_PERCPU_ALLOC] = { "percpu", "percpu_alloc_percpu" },
	[KMT_EV_PERCPU_FREE] = { "percpu", "percpu_free_percpu" },
	[KMT_EV_PERCPU_ALLOC_FAIL] = { "percpu", "percpu_alloc_percpu_fail" },
	[KMT_EV_PERCPU_CREATE_CHUNK] = { "percpu", "percpu_create_chunk" },
	[KMT_EV_PERCPU_DESTROY_CHUNK] = { "percpu", "percpu_destroy_chunk" },
	[KMT_EV_PAGECACHE_ADD] = { "filemap", "mm_filemap_add_to_page_cache" },
	[KMT_EV_PAGECACHE_DELETE] = { "filemap", "mm_filemap_delete_from_page_cache" },
	[KMT_EV_FILEMAP_FAULT] = { "filemap", "mm_filemap_fault" },
	[KMT_EV_FILEMAP_GET_PAGES] = { "filemap", "mm_filemap_get_pages" },
	[KMT_EV_FILEMAP_MAP_PAGES] = { "filemap", "mm_filemap_map_pages" },
	[KMT_EV_FILEMAP_SET_WB_ERR] = { "filemap", "filemap_set_wb_err" },
	[KMT_EV_FILEMAP_CHECK_WB_ERR] = { "filemap", "file_check_and_advance_wb_err" },
	[KMT_EV_OOM_SCORE_ADJ_UPDATE] = { "oom", "oom_score_adj_update" },
	[KMT_EV_OOM_RECLAIM_RETRY] = { "oom", "reclaim_retry_zone" },
	[KMT_EV_OOM_COMPACT_RETRY] = { "oom", "compact_retry" },
	[KMT_EV_OOM_WAKE_REAPER] = { "oom", "wake_reaper" },
	[KMT_EV_OOM_START_REAPING] = { "oom", "start_task_reaping" },
	[KMT_EV_OOM_FINISH_REAPING] = { "oom", "finish_task_reaping" },
	[KMT_EV_OOM_SKIP_REAPING] = { "oom", "skip_task_reaping" },
	[KMT_EV_MEMCG_MOD_STATE] = { "memcg", "mod_memcg_state" },
	[KMT_EV_MEMCG_MOD_LRUVEC_STATE] = { "memcg", "mod_memcg_lruvec_state" },
	[KMT_EV_MEMCG_COUNT_EVENTS] = { "memcg", "count_memcg_events" },
	[KMT_EV_MEMCG_FLUSH_STATS] = { "memcg", "memcg_flush_stats" },
};

const char *kmt_event_type_system(enum kmt_event_type type)
{
	return type > KMT_EV_UNKNOWN && type < KMT_EV_NR ? names[type][0] : NULL;
}

const char *kmt_event_type_event(enum kmt_event_type type)
{
	return type > KMT_EV_UNKNOWN && type < KMT_EV_NR ? names[type][1] : NULL;
}

bool kmt_event_type_on_request(enum kmt_event_type type)
{
	return type >= KMT_EV_FIRST_ON_REQUEST && type < KMT_EV_NR;
}

const char *kmt_event_type_name(enum kmt_event_type type)
{
	static char full[KMT_EV_NR][64];

	if (type <= KMT_EV_UNKNOWN || type >= KMT_EV_NR)
		return "unknown";
	if (!full[type][0])
		snprintf(full[type], sizeof(full[type]), "%s:%s", names[type][0], names[type][1]);
	return full[type];
}

enum kmt_event_type kmt_event_type_lookup(const char *name)
{
	const char *colon = strchr(name, ':');
	int t;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++) {
		if (colon) {
			size_t len = colon - name;

			if (strlen(names[t][0]) == len && !strncmp(names[t][0], name, len) &&
			    !strcmp(names[t][1], colon + 1))
				return t;
		} else if (!strcmp(names[t][1], name)) {
			return t;
		}
	}
	return KMT_EV_UNKNOWN;
}
