"""Every PTOAS op name by kind, for refusing the ones mmair does not model by name (generated from
include/PTO/IR/PTOOps.td, VPTOOps.td and VPTOUbOps.td at tonibohnlein/PTOAS e32488c9, the
mnemonics only).
The tile-level cube ops and the VPTO cube data path mmair converts are in SUPPORTED; everything
else is refused."""

SUPPORTED: frozenset[str] = frozenset({
    'alloc_tile', 'barrier', 'get_block_idx', 'get_block_num', 'make_tensor_view',
    'partition_view', 'section.cube', 'set_flag', 'set_validshape', 'set_flag_dyn', 'syncall', 'textract', 'tgemv',
    'tgemv.acc', 'tgemv.bias', 'tload', 'tmatmul', 'tmatmul.acc', 'tmatmul.bias', 'tmov',
    'tstore', 'wait_flag', 'wait_flag_dyn',
    # VPTO (dialects/ptoas/vpto.py)
    'tile_buf_addr', 'tensor_view_addr', 'castptr', 'addptr', 'mte_gm_l1', 'mte_gm_l1_frac', 'mte_l1_l0a', 'mte_l1_l0b',
    'load_cbuf_to_ca', 'load_cbuf_to_cb', 'mte_l1_bt', 'mad', 'mad_acc', 'mad_bias', 'mte_l0c_gm',
    'mte_l0c_l1', 'mte_l0c_ub', 'mte_l1_fb', 'copy_cbuf_to_fbuf',
})

REFUSED: dict[str, tuple[str, ...]] = {
    'scalar/pointer': (
        'addptr', 'ptrtoint', 'inttoptr', 'castptr', 'load_scalar', 'store_scalar',
        'get_tensor_view_dim', 'get_tensor_view_stride', 'alloc_multi_tile', 'multi_tile_get',
        'subview', 'set_validshape', 'get_validshape', 'bitcast', 'make_prefetch_async_context',
        'get_prefetch_async_session', 'get_subblock_idx', 'get_subblock_num', 'set_quant_scalar',
        'set_quant_vector', 'declare_tile', 'declare_global', 'declare_eventid_array',
        'eventid_array_get', 'eventid_array_set', 'declare_local_array', 'local_array_get',
        'local_array_set', 'declare_struct', 'struct_get', 'struct_set', 'cmo.cacheinvalid', 'print',
        'trap', 'mgather', 'mscatter'
    ),
    'vector tile': (
        'tprefetch', 'tprefetch_async', 'ttrans', 'tassign', 'tile_valid_rows', 'tile_valid_cols',
        'tsetval', 'tgetval', 'thistogram', 'tget_scale_addr', 'tabs', 'tadd', 'taddrelu', 'taddc',
        'tadds', 'taxpy', 'taddsc', 'tand', 'tconcat', 'tconcatidx', 'tands', 'tci', 'ttri', 'tcmp',
        'tcmps', 'tcolexpand', 'tcolexpandadd', 'tcolexpandmul', 'tcolexpanddiv', 'tcolexpandsub',
        'tcolexpandexpdif', 'tcolexpandmax', 'tcolexpandmin', 'tcolmax', 'tcolargmax', 'tcolmin',
        'tcolargmin', 'tcolsum', 'tcolprod', 'tcvt', 'trandom', 'tdiv', 'tdivs', 'tfmod', 'tfmods',
        'tpow', 'tpows', 'texp', 'texpands', 'tinsert', 'tfillpad', 'tgather', 'tgatherb', 'tlog',
        'tlrelu', 'tmax', 'tmaxs', 'tmin', 'tmins', 'tmrgsort', 'tmul', 'tmuls', 'tneg', 'tnot', 'tor',
        'tors', 'tpartadd', 'tpartmax', 'tpartmin', 'tpartargmax', 'tpartargmin', 'tpartmul', 'tprelu',
        'tquant', 'tdequant', 'trecip', 'trelu', 'trem', 'trems', 'treshape', 'trowexpand',
        'trowexpanddiv', 'trowexpandmul', 'trowexpandsub', 'trowexpandadd', 'trowexpandexpdif',
        'trowexpandmax', 'trowexpandmin', 'trowmax', 'trowargmax', 'trowmin', 'trowargmin', 'trowsum',
        'trowprod', 'trsqrt', 'tscatter', 'tsel', 'tsels', 'tshl', 'tshr', 'tshls', 'tshrs', 'tsort32',
        'tsqrt', 'tsub', 'tsubc', 'tsubs', 'tsubsc', 'txors', 'txor', 'tprint'
    ),
    'MX tile': (
        'tmatmul.mx', 'tmatmul.mx.acc', 'tmatmul.mx.bias', 'tgemv.mx', 'tgemv.mx.acc', 'tgemv.mx.bias',
        'tquant.mx'
    ),
    'synchronization': (
        'record_event', 'wait_event', 'barrier_sync', 'get_buf',
        'get_buf_dyn', 'rls_buf', 'rls_buf_dyn', 'sync.set', 'sync.wait', 'set_cross_block',
        'wait_cross_block', 'set_intra_block', 'wait_intra_block', 'fence.barrier_all', 'tsync',
        'set_ffts'
    ),
    'section': (
        'section.vector', 'section.simt', 'fusion_region', 'yield'
    ),
    'cube/vector pipe (tpush/tpop)': (
        'aic_initialize_pipe', 'aiv_initialize_pipe', 'talloc_to_aiv', 'talloc_to_aic', 'tpush_to_aiv',
        'tpush_to_aic', 'tpop_from_aic', 'tpop_from_aiv', 'tfree_from_aic', 'tfree_from_aiv',
        'reserve_buffer', 'import_reserved_buffer', 'initialize_l2g2l_pipe', 'initialize_l2l_pipe',
        'tpush', 'talloc', 'tpop', 'tfree'
    ),
    'communication': (
        'comm.build_async_session', 'comm.tput_async', 'comm.tget_async', 'comm.wait_async_event',
        'comm.test_async_event', 'comm.tput', 'comm.tget', 'comm.tnotify', 'comm.twait', 'comm.ttest',
        'comm.tbroadcast', 'comm.tgather', 'comm.tscatter', 'comm.treduce'
    ),
    'VPTO scalar/control': (
        'load', 'store', 'ldg', 'stg', 'ld_dev', 'st_dev', 'tensor_view_addr', 'tile_buf_addr',
        'strict_vecscope', 'mem_bar', 'dsb', 'dcci', 'set_mov_pad_val', 'set_loop2_stride_outtoub',
        'set_loop1_stride_outtoub', 'set_loop_size_outtoub', 'set_loop2_stride_outtol1',
        'set_loop1_stride_outtol1', 'set_loop_size_outtol1', 'set_loop2_stride_ubtoout',
        'set_loop1_stride_ubtoout', 'set_loop_size_ubtoout', 'set_loop3_para', 'set_channel_para',
        'set_mte2_nz_para', 'set_pad_val_outtol1', 'get_ctrl', 'get_vms4_sr', 'set_store_atomic_cfg',
        'store_vfsimt_info', 'simt_launch', 'sbitset0', 'sbitset1', 'set_quant_pre', 'set_relu_alpha',
        'set_fix_clip_relu', 'set_fpc', 'set_atomic_add', 'set_atomic_max', 'set_atomic_min',
        'set_atomic_none', 'set_atomic_f32', 'set_atomic_f16', 'set_atomic_bf16', 'set_atomic_s32',
        'set_atomic_s16', 'set_atomic_s8', 'get_tid_x', 'get_tid_y', 'get_tid_z', 'get_block_dim_x',
        'get_block_dim_y', 'get_block_dim_z', 'get_grid_dim_x', 'get_grid_dim_y', 'get_grid_dim_z',
        'get_block_idx_x', 'get_block_idx_y', 'get_block_idx_z', 'get_veccoreid', 'get_laneid',
        'get_clock32', 'get_clock64', 'get_lanemask_eq', 'get_lanemask_le', 'get_lanemask_lt',
        'get_lanemask_ge', 'get_lanemask_gt', 'shuffle_idx', 'shuffle_up', 'shuffle_down',
        'shuffle_bfly', 'redux_add', 'redux_max', 'redux_min', 'atomic_cas', 'atomic_exch',
        'atomic_add', 'atomic_sub', 'atomic_min', 'atomic_max', 'atomic_and', 'atomic_or', 'atomic_xor',
        'mulhi', 'mul_i32toi64', 'exp', 'log', 'sin', 'cos', 'ceil', 'floor', 'rint', 'round', 'fmin',
        'fmax', 'convert', 'syncthreads', 'threadfence', 'threadfence_block', 'keep', 'resume',
        'copy_gm_to_ubuf', 'mte_gm_ub', 'copy_ubuf_to_ubuf', 'copy_cbuf_to_ubuf', 'copy_ubuf_to_cbuf',
        'mte_ub_ub', 'mte_ub_l1', 'init_align', 'sprclr', 'sprsti', 'sprsts', 'uvld', 'chistv2',
        'dhistv2', 'copy_ubuf_to_gm', 'mte_ub_gm', 'mte_l1_ub'
    ),
    'VPTO vector micro': (
        'vecscope', 'vote_all', 'vote_any', 'vote_uni', 'vote_ballot', 'prmt', 'pow', 'vlds', 'vldsx2',
        'vldas', 'vldus', 'vbr', 'vdup', 'pset_b8', 'pset_b16', 'pset_b32', 'pge_b8', 'pge_b16',
        'pge_b32', 'plt_b8', 'plt_b16', 'plt_b32', 'pltm_b8', 'pltm_b16', 'pltm_b32', 'ppack',
        'punpack', 'pbitcast', 'pnot', 'psel', 'pand', 'por', 'pxor', 'plds', 'pldi', 'psti', 'vabs',
        'vexp', 'vln', 'vsqrt', 'vneg', 'vrelu', 'vnot', 'vcadd', 'vcmax', 'vcmin', 'vcgadd', 'vcgmax',
        'vcgmin', 'vcpadd', 'vcbmax', 'vcbmin', 'vadd', 'vsub', 'vmul', 'vdiv', 'vmax', 'vmin', 'vand',
        'vor', 'vxor', 'vmadd', 'vaddc', 'vsubc', 'vaddcs', 'vsubcs', 'vshl', 'vshr', 'vsel', 'vcmp',
        'vcmps', 'pdintlv_b8', 'pdintlv_b16', 'pdintlv_b32', 'pintlv_b8', 'pintlv_b16', 'pintlv_b32',
        'vtrc', 'vcvt', 'vmulscvt', 'vbitcast', 'vci', 'vbitsort', 'vmrgsort4', 'vgather2', 'vgatherb',
        'vgather2_bc', 'vmuls', 'vadds', 'vmaxs', 'vmins', 'vlrelu', 'vshls', 'vshrs', 'vsts',
        'vscatter', 'psts', 'vselr', 'vsqz', 'vusqz', 'vpack', 'vsunpack', 'vzunpack', 'vselrv2',
        'vintlv', 'vdintlv', 'vintlvv2', 'vdintlvv2', 'vmull', 'vmula', 'vprelu', 'vexpdif', 'vaxpy',
        'vaddreluconv', 'vmulconv', 'vstsx2', 'vsldb', 'vsstb', 'vstas', 'vstar', 'pstu', 'vstus',
        'vstur'
    ),
    'VPTO cube micro': (
        'copy_gm_to_cbuf', 'copy_gm_to_cbuf_multi_nd2nz', 'copy_gm_to_cbuf_multi_dn2nz',
        'copy_cbuf_to_bt', 'copy_cbuf_to_fbuf', 'load_cbuf_to_ca', 'load_cbuf_to_ca_s4',
        'load_cbuf_to_cb', 'load_cbuf_to_cb_s4', 'load_cbuf_to_ca_mx', 'load_cbuf_to_cb_mx',
        'copy_matrix_cc_to_gm', 'copy_matrix_cc_to_cbuf', 'copy_matrix_cc_to_ub', 'mad', 'mad_acc',
        'mad_bias', 'mad_mx', 'mad_mx_acc', 'mad_mx_bias', 'mad_raw', 'mad_bias_raw', 'mad_mx_raw',
        'mad_mx_bias_raw', 'mte_gm_l1', 'mte_l1_bt', 'mte_l1_fb', 'mte_gm_l1_frac', 'raw_fill_l1',
        'create_cbuf_matrix', 'mte_l1_l0a', 'mte_l1_l0b', 'mte_l1_l0a_mx', 'mte_l1_l0b_mx',
        'mte_l0c_l1', 'mte_l0c_gm', 'mte_l0c_ub'
    ),
    'VPTO UB vector': (
        'ub.vadd', 'ub.vsub', 'ub.vmul', 'ub.vdiv', 'ub.vmax', 'ub.vmin', 'ub.vand', 'ub.vor',
        'ub.vaddrelu', 'ub.vnot', 'ub.vabs', 'ub.vrelu', 'ub.vexp', 'ub.vln', 'ub.vsqrt', 'ub.vrsqrt',
        'ub.vshl', 'ub.vshr', 'ub.vmuls', 'ub.vadds', 'ub.vmaxs', 'ub.vmins', 'ub.vdup', 'ub.set_mask',
        'ub.set_mask_count', 'ub.set_mask_norm'
    ),
}
