"""The public names of TensorFlow 2.21's namespaces (modules left out), for
``tools/tf_coverage.py`` (``python -m eagertape coverage``) where TensorFlow is not
installed; ``tf_coverage.tf_names("installed")`` reads the same names from an
installed TensorFlow."""

VERSION = "2.21.0"

# TF 2.21's other top-level namespaces: the report names them as not counted (some,
# such as keras, autodiff or optimizers, the facade has; none is in the figure).
# tf.experimental is counted for tf.experimental.numpy only.
UNCOUNTED = """
    autodiff autograph bitwise compat distribute dtensor feature_column
    graph_util initializers keras lite losses metrics mlir optimizers
    profiler quantization queue raw_ops security sets
    summary sysconfig test tools tpu types version xla
""".split()

NAMES = {
    '': """
        AggregationMethod Assert CriticalSection DType DeviceSpec GradientTape Graph
        IndexedSlices IndexedSlicesSpec Module NoneTensorSpec Operation OptionalSpec
        RaggedTensor RaggedTensorSpec RegisterGradient SparseTensor SparseTensorSpec Tensor
        TensorArray TensorArraySpec TensorShape TensorSpec TypeSpec UnconnectedGradients
        Variable VariableAggregation VariableSynchronization abs acos acosh add add_n
        approx_top_k argmax argmin argsort as_dtype as_string asin asinh assert_equal
        assert_greater assert_less assert_rank atan atan2 atanh batch_to_space bfloat16
        bitcast bool boolean_mask broadcast_dynamic_shape broadcast_static_shape
        broadcast_to case cast check_pinned clip_by_global_norm clip_by_norm clip_by_value
        complex complex128 complex64 concat cond constant constant_initializer
        control_dependencies conv conv2d_backprop_filter_v2 conv2d_backprop_input_v2
        convert_to_tensor cos cosh cumsum custom_gradient device divide double
        dynamic_partition dynamic_stitch edit_distance eig eigvals einsum ensure_shape equal
        executing_eagerly exp expand_dims extract_volume_patches eye fftnd fill fingerprint
        float16 float32 float64 floor foldl foldr function gather gather_nd
        get_current_name_scope get_logger get_static_value grad_pass_through gradients
        greater greater_equal group guarantee_const half hessians histogram_fixed_width
        histogram_fixed_width_bins identity identity_n ifftnd import_graph_def init_scope
        inside_function int16 int32 int64 int8 irfftnd is_symbolic_tensor is_tensor less
        less_equal linspace load_library load_op_library logical_and logical_not logical_or
        make_ndarray make_tensor_proto map_fn matmul matrix_square_root maximum meshgrid
        minimum multiply name_scope negative newaxis no_gradient no_op
        nondifferentiable_batch_function norm not_equal numpy_function one_hot ones
        ones_initializer ones_like pad parallel_stack pow print py_function qint16 qint32
        qint8 quint16 quint8 ragged_fill_empty_rows ragged_fill_empty_rows_grad
        random_index_shuffle random_normal_initializer random_uniform_initializer range rank
        realdiv recompute_grad reduce_all reduce_any reduce_logsumexp reduce_max reduce_mean
        reduce_min reduce_prod reduce_sum register_tensor_conversion_function repeat
        required_space_to_batch_paddings reshape resource reverse reverse_sequence rfftnd
        roll round saturate_cast scalar_mul scan scatter_nd searchsorted sequence_mask shape
        shape_n sigmoid sign sin sinh size slice sort space_to_batch space_to_batch_nd split
        sqrt square squeeze stack stop_gradient strided_slice string subtract switch_case
        tan tanh tensor_scatter_nd_add tensor_scatter_nd_max tensor_scatter_nd_min
        tensor_scatter_nd_sub tensor_scatter_nd_update tensordot tile timestamp transpose
        truediv truncatediv truncatemod tuple type_spec_from_value uint16 uint32 uint64
        uint8 unique unique_with_counts unravel_index unstack variable_creator_scope variant
        vectorized_map where while_loop zeros zeros_initializer zeros_like
    """.split(),
    'math': """
        abs accumulate_n acos acosh add add_n angle approx_max_k approx_min_k argmax argmin
        asin asinh atan atan2 atanh bessel_i0 bessel_i0e bessel_i1 bessel_i1e betainc
        bincount ceil confusion_matrix conj cos cosh count_nonzero cumprod cumsum
        cumulative_logsumexp digamma divide divide_no_nan equal erf erfc erfcinv erfinv exp
        expm1 floor floordiv floormod greater greater_equal igamma igammac imag in_top_k
        invert_permutation is_finite is_inf is_nan is_non_decreasing is_strictly_increasing
        l2_normalize lbeta less less_equal lgamma log log1p log_sigmoid log_softmax
        logical_and logical_not logical_or logical_xor maximum minimum mod multiply
        multiply_no_nan ndtri negative nextafter not_equal polygamma polyval pow real
        reciprocal reciprocal_no_nan reduce_all reduce_any reduce_euclidean_norm
        reduce_logsumexp reduce_max reduce_mean reduce_min reduce_prod reduce_std reduce_sum
        reduce_variance rint round rsqrt scalar_mul segment_max segment_mean segment_min
        segment_prod segment_sum sigmoid sign sin sinh sobol_sample softmax softplus
        softsign sqrt square squared_difference subtract tan tanh top_k truediv
        unsorted_segment_max unsorted_segment_mean unsorted_segment_min
        unsorted_segment_prod unsorted_segment_sqrt_n unsorted_segment_sum xdivy xlog1py
        xlogy zero_fraction zeta
    """.split(),
    'nn': """
        RNNCellDeviceWrapper RNNCellDropoutWrapper RNNCellResidualWrapper
        all_candidate_sampler approx_max_k approx_min_k atrous_conv2d
        atrous_conv2d_transpose avg_pool avg_pool1d avg_pool2d avg_pool3d
        batch_norm_with_global_normalization batch_normalization bias_add collapse_repeated
        compute_accidental_hits compute_average_loss conv1d conv1d_transpose conv2d
        conv2d_transpose conv3d conv3d_transpose conv_transpose convolution crelu
        ctc_beam_search_decoder ctc_greedy_decoder ctc_loss ctc_unique_labels depth_to_space
        depthwise_conv2d depthwise_conv2d_backprop_filter depthwise_conv2d_backprop_input
        dilation2d dropout elu embedding_lookup embedding_lookup_sparse erosion2d
        fixed_unigram_candidate_sampler fractional_avg_pool fractional_max_pool gelu
        in_top_k isotonic_regression l2_loss l2_normalize leaky_relu
        learned_unigram_candidate_sampler local_response_normalization log_poisson_loss
        log_softmax lrn max_pool max_pool1d max_pool2d max_pool3d max_pool_with_argmax
        moments nce_loss normalize_moments pool relu relu6 safe_embedding_lookup_sparse
        sampled_softmax_loss scale_regularization_loss selu separable_conv2d sigmoid
        sigmoid_cross_entropy_with_logits silu softmax softmax_cross_entropy_with_logits
        softplus softsign space_to_batch space_to_depth
        sparse_softmax_cross_entropy_with_logits sufficient_statistics swish tanh top_k
        weighted_cross_entropy_with_logits weighted_moments with_space_to_batch
        zero_fraction
    """.split(),
    'linalg': """
        LinearOperator LinearOperatorAdjoint LinearOperatorBlockDiag
        LinearOperatorBlockLowerTriangular LinearOperatorCirculant LinearOperatorCirculant2D
        LinearOperatorCirculant3D LinearOperatorComposition LinearOperatorDiag
        LinearOperatorFullMatrix LinearOperatorHouseholder LinearOperatorIdentity
        LinearOperatorInversion LinearOperatorKronecker LinearOperatorLowRankUpdate
        LinearOperatorLowerTriangular LinearOperatorPermutation LinearOperatorScaledIdentity
        LinearOperatorToeplitz LinearOperatorTridiag LinearOperatorZeros adjoint band_part
        banded_triangular_solve cholesky cholesky_solve cross det diag diag_part eig eigh
        eigh_tridiagonal eigvals eigvalsh einsum expm eye global_norm inv l2_normalize
        logdet logm lstsq lu lu_matrix_inverse lu_reconstruct lu_solve matmul matrix_rank
        matrix_transpose matvec norm normalize pinv qr set_diag slogdet solve sqrtm svd
        tensor_diag tensor_diag_part tensordot trace triangular_solve tridiagonal_matmul
        tridiagonal_solve
    """.split(),
    'random': """
        Algorithm Generator all_candidate_sampler categorical create_rng_state
        fixed_unigram_candidate_sampler fold_in gamma get_global_generator
        learned_unigram_candidate_sampler log_uniform_candidate_sampler normal poisson
        set_global_generator set_seed shuffle split stateless_binomial stateless_categorical
        stateless_gamma stateless_normal stateless_parameterized_truncated_normal
        stateless_poisson stateless_truncated_normal stateless_uniform truncated_normal
        uniform uniform_candidate_sampler
    """.split(),
    'signal': """
        dct fft fft2d fft3d fftnd fftshift frame hamming_window hann_window idct ifft ifft2d
        ifft3d ifftnd ifftshift inverse_mdct inverse_stft inverse_stft_window_fn irfft
        irfft2d irfft3d irfftnd kaiser_bessel_derived_window kaiser_window
        linear_to_mel_weight_matrix mdct mfccs_from_log_mel_spectrograms overlap_and_add
        rfft rfft2d rfft3d rfftnd stft vorbis_window
    """.split(),
    'image': """
        ResizeMethod adjust_brightness adjust_contrast adjust_gamma adjust_hue
        adjust_jpeg_quality adjust_saturation central_crop combined_non_max_suppression
        convert_image_dtype crop_and_resize crop_to_bounding_box decode_and_crop_jpeg
        decode_bmp decode_gif decode_image decode_jpeg decode_jxl decode_png decode_webp
        draw_bounding_boxes encode_jpeg encode_png extract_glimpse extract_jpeg_shape
        extract_patches flip_left_right flip_up_down generate_bounding_box_proposals
        grayscale_to_rgb hsv_to_rgb image_gradients is_jpeg non_max_suppression
        non_max_suppression_overlaps non_max_suppression_padded
        non_max_suppression_with_scores pad_to_bounding_box per_image_standardization psnr
        random_brightness random_contrast random_crop random_flip_left_right
        random_flip_up_down random_hue random_jpeg_quality random_saturation resize
        resize_with_crop_or_pad resize_with_pad rgb_to_grayscale rgb_to_hsv rgb_to_yiq
        rgb_to_yuv rot90 sample_distorted_bounding_box sobel_edges ssim ssim_multiscale
        stateless_random_brightness stateless_random_contrast stateless_random_crop
        stateless_random_flip_left_right stateless_random_flip_up_down stateless_random_hue
        stateless_random_jpeg_quality stateless_random_saturation
        stateless_sample_distorted_bounding_box total_variation transpose yiq_to_rgb
        yuv_to_rgb
    """.split(),
    'dtypes': """
        DType QUANTIZED_DTYPES as_dtype bfloat16 bool cast complex complex128 complex64
        double float16 float32 float64 half int16 int32 int64 int8 qint16 qint32 qint8
        quint16 quint8 resource saturate_cast string uint16 uint32 uint64 uint8 variant
    """.split(),
    'debugging': """
        Assert assert_all_finite assert_equal assert_greater assert_greater_equal
        assert_integer assert_less assert_less_equal assert_near assert_negative
        assert_non_negative assert_non_positive assert_none_equal assert_positive
        assert_proper_iterable assert_rank assert_rank_at_least assert_rank_in
        assert_same_float_dtype assert_scalar assert_shapes assert_type check_numerics
        disable_check_numerics disable_traceback_filtering enable_check_numerics
        enable_traceback_filtering get_log_device_placement is_numeric_tensor
        is_traceback_filtering_enabled set_log_device_placement
    """.split(),
    'experimental.numpy': """
        abs absolute add all allclose amax amin angle any append arange arccos arccosh
        arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort around array array_equal
        asanyarray asarray ascontiguousarray atleast_1d atleast_2d atleast_3d average
        bitwise_and bitwise_not bitwise_or bitwise_xor bool_ broadcast_arrays broadcast_to
        cbrt ceil clip complex128 complex64 complex_ compress concatenate conj conjugate
        copy cos cosh count_nonzero cross cumprod cumsum deg2rad diag diag_indices diagflat
        diagonal diff divide divmod dot dsplit dstack e einsum empty empty_like equal exp
        exp2 expand_dims experimental_enable_numpy_behavior expm1 eye fabs finfo fix flatten
        flip fliplr flipud float16 float32 float64 float_ float_power floor floor_divide
        full full_like gcd geomspace greater greater_equal heaviside hsplit hstack hypot
        identity iinfo imag inexact inf inner int16 int32 int64 int8 int_ isclose iscomplex
        iscomplexobj isfinite isinf isnan isneginf isposinf isreal isrealobj isscalar
        issubdtype ix_ kron lcm less less_equal linspace log log10 log1p log2 logaddexp
        logaddexp2 logical_and logical_not logical_or logical_xor logspace matmul max
        maximum mean meshgrid min minimum mod moveaxis multiply nanmean nanprod nansum
        ndarray ndim negative newaxis nextafter nonzero not_equal object_ ones ones_like
        outer pad pi polyval positive power prod promote_types ptp rad2deg ravel real
        reciprocal remainder repeat reshape result_type roll rot90 round select shape sign
        signbit sin sinc sinh size sort split sqrt square squeeze stack std string_ subtract
        sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose tri tril
        triu true_divide uint16 uint32 uint64 uint8 unicode_ vander var vdot vsplit vstack
        where zeros zeros_like
    """.split(),
    'data': """
        AUTOTUNE Dataset DatasetSpec FixedLengthRecordDataset INFINITE_CARDINALITY Iterator
        IteratorSpec NumpyIterator Options TFRecordDataset TextLineDataset ThreadingOptions
        UNKNOWN_CARDINALITY
    """.split(),
    'train': """
        BytesList Checkpoint CheckpointManager CheckpointOptions CheckpointView ClusterDef
        ClusterSpec Coordinator Example ExponentialMovingAverage Feature FeatureList
        FeatureLists Features FloatList Int64List JobDef SequenceExample ServerDef
        TrackableView checkpoints_iterator get_checkpoint_state latest_checkpoint
        list_variables load_checkpoint load_variable
    """.split(),
    'nest': """
        assert_same_structure flatten is_nested map_structure pack_sequence_as
    """.split(),
    'errors': """
        ABORTED ALREADY_EXISTS AbortedError AlreadyExistsError CANCELLED CancelledError
        DATA_LOSS DEADLINE_EXCEEDED DataLossError DeadlineExceededError FAILED_PRECONDITION
        FailedPreconditionError INTERNAL INVALID_ARGUMENT InternalError InvalidArgumentError
        NOT_FOUND NotFoundError OK OUT_OF_RANGE OpError OperatorNotAllowedInGraphError
        OutOfRangeError PERMISSION_DENIED PermissionDeniedError RESOURCE_EXHAUSTED
        ResourceExhaustedError UNAUTHENTICATED UNAVAILABLE UNIMPLEMENTED UNKNOWN
        UnauthenticatedError UnavailableError UnimplementedError UnknownError
    """.split(),
    'config': """
        LogicalDevice LogicalDeviceConfiguration PhysicalDevice
        experimental_connect_to_cluster experimental_connect_to_host
        experimental_functions_run_eagerly experimental_run_functions_eagerly
        functions_run_eagerly get_logical_device_configuration get_soft_device_placement
        get_visible_devices list_logical_devices list_physical_devices run_functions_eagerly
        set_logical_device_configuration set_soft_device_placement set_visible_devices
    """.split(),
    'strings': """
        as_string bytes_split format join length lower ngrams reduce_join
        regex_full_match regex_replace split strip substr to_hash_bucket
        to_hash_bucket_fast to_hash_bucket_strong to_number unicode_decode
        unicode_decode_with_offsets unicode_encode unicode_script unicode_split
        unicode_split_with_offsets unicode_transcode unsorted_segment_join upper
    """.split(),
    'sparse': """
        SparseTensor add bincount concat cross cross_hashed expand_dims eye
        fill_empty_rows from_dense map_values mask maximum minimum reduce_max
        reduce_sum reorder reset_shape reshape retain sampled_addmm segment_mean
        segment_sqrt_n segment_sum slice softmax sparse_dense_matmul split to_dense
        to_indicator transpose
    """.split(),
    'lookup': """
        KeyValueTensorInitializer StaticHashTable StaticVocabularyTable
        TextFileIndex TextFileInitializer
    """.split(),
    'ragged': """
        boolean_mask constant cross cross_hashed map_flat_values range
        row_splits_to_segment_ids segment_ids_to_row_splits stack
        stack_dynamic_partitions
    """.split(),
    'io': """
        FixedLenFeature FixedLenSequenceFeature RaggedFeature SparseFeature
        TFRecordOptions TFRecordWriter VarLenFeature decode_and_crop_jpeg
        decode_base64 decode_bmp decode_compressed decode_csv decode_gif
        decode_image decode_jpeg decode_json_example decode_jxl decode_png
        decode_proto decode_raw decode_webp deserialize_many_sparse encode_base64
        encode_jpeg encode_png encode_proto extract_jpeg_shape is_jpeg
        match_filenames_once matching_files parse_example parse_sequence_example
        parse_single_example parse_single_sequence_example parse_tensor read_file
        serialize_many_sparse serialize_sparse serialize_tensor write_file
        write_graph
    """.split(),
    'audio': """
        decode_wav encode_wav
    """.split(),
    'saved_model': """
        ASSETS_DIRECTORY ASSETS_KEY Asset CLASSIFY_INPUTS CLASSIFY_METHOD_NAME
        CLASSIFY_OUTPUT_CLASSES CLASSIFY_OUTPUT_SCORES DEBUG_DIRECTORY
        DEBUG_INFO_FILENAME_PB DEFAULT_SERVING_SIGNATURE_DEF_KEY GPU LoadOptions
        PREDICT_INPUTS PREDICT_METHOD_NAME PREDICT_OUTPUTS REGRESS_INPUTS
        REGRESS_METHOD_NAME REGRESS_OUTPUTS SAVED_MODEL_FILENAME_PB
        SAVED_MODEL_FILENAME_PBTXT SAVED_MODEL_SCHEMA_VERSION SERVING SaveOptions
        TPU TRAINING VARIABLES_DIRECTORY VARIABLES_FILENAME contains_saved_model
        load save
    """.split(),
}
