extension OpRegistry {
    static var dataMovementKernels: [BuiltinOperator: KernelFactory] {
        [
            .concatenation: { try ConcatenationKernel($0) },
            .pack: { try PackKernel($0) },
            .unpack: { try SplitKernel($0, .unpack) },
            .split: { try SplitKernel($0, .split) },
            .splitV: { try SplitKernel($0, .splitV) },
            .slice: { try SliceKernel($0) },
            .stridedSlice: { try StridedSliceKernel($0) },
            .gather: { try GatherKernel($0) },
            .gatherND: { try GatherNDKernel($0) },
            .transpose: { try TransposeKernel($0) },
            .pad: { try PadKernel($0) },
            .padv2: { try PadKernel($0) },
            .mirrorPad: { try MirrorPadKernel($0) },
            .resizeBilinear: { try ResizeBilinearKernel($0) },
            .resizeNearestNeighbor: { try ResizeNearestNeighborKernel($0) },
            .spaceToDepth: { try SpaceDepthKernel($0, .spaceToDepth) },
            .depthToSpace: { try SpaceDepthKernel($0, .depthToSpace) },
            .spaceToBatchND: { try SpaceBatchKernel($0, .spaceToBatch) },
            .batchToSpaceND: { try SpaceBatchKernel($0, .batchToSpace) },
            .tile: { try TileKernel($0) },
        ]
    }
}
