"""
namespace poplar
"""
from __future__ import annotations
import collections.abc
import numpy
import popdsl._core.program
import typing
__all__: list[str] = ['BOOL', 'CHAR', 'CodeletFileType', 'ComputeSet', 'DOUBLE', 'DataStream', 'DataStreamType', 'Device', 'DeviceManager', 'Engine', 'ErrorCode', 'Executable', 'FLOAT', 'FieldData', 'FieldDataSize', 'FieldRef', 'FloatingPointBehaviour', 'Function', 'FunctionBuffer', 'FunctionBufferMappingType', 'GlobalExchangeConstraint', 'GlobalExchangeFlow', 'Graph', 'HALF', 'HostFunction', 'INT', 'IPUModel', 'Interval', 'IpuLinkConfiguration', 'IpuLinkTopology', 'LONG', 'LONGLONG', 'QUARTER', 'QUARTER_METADATA', 'RecoveryAction', 'RemoteBuffer', 'ReplicatedStreamMode', 'RuntimeOptions', 'SHORT', 'SIGNED', 'SIGNED_CHAR', 'SIGNED_INT', 'SIGNED_SHORT', 'SerializationFormat', 'StreamRows', 'SyncType', 'Target', 'TargetType', 'Tensor', 'TensorCloneDuplicationMethod', 'TensorCloneMethod', 'TensorRearranger', 'Type', 'UNSIGNED', 'UNSIGNED_CHAR', 'UNSIGNED_INT', 'UNSIGNED_LONG', 'UNSIGNED_LONGLONG', 'UNSIGNED_SHORT', 'UpsampleMethod', 'VariableInterval', 'VariableMappingMethod', 'VariableRef', 'VertexIntrospector', 'VertexPerfEstimate', 'VertexRef', 'append', 'application_runtime_error', 'compileGraph', 'concat', 'control_program_error', 'cycleCount', 'cycleStamp', 'errorCodeFromString', 'errorCodeToString', 'file_load_error', 'getHwSeeds', 'graph_connection_error', 'graph_cycle_error', 'graph_memory_allocation_error', 'graph_object_creation_error', 'graph_object_load_error', 'graph_program_compilation_error', 'graph_recursion_error', 'graph_replication_error', 'index_error', 'invalid_machine_model', 'invalid_option', 'invalid_tile_mapping', 'link_error', 'memory_elem_constraints_error', 'missing_graph_profile', 'missing_perf_estimate', 'missing_profile_data', 'no_environment', 'no_size_specified', 'overflow_error', 'parse_error', 'poplar_error', 'profiling_disabled', 'readJSON', 'recoverable_runtime_error', 'replication_factor', 'runtime_error', 'setFloatingPointBehaviour', 'setHwSeeds', 'setStochasticRounding', 'stream_connection_error', 'stream_memory_allocation_error', 'symbol_error', 'system_runtime_error', 'tensor_creation_error', 'tensor_io_state_error', 'tensor_metadata_error', 'type_error', 'unknown_field', 'unknown_runtime_error', 'unknown_vertex_type', 'unrecoverable_runtime_error']
class poplar_error(RuntimeError):
    pass
class runtime_error(poplar_error):
    pass
class application_runtime_error(runtime_error):
    pass
class system_runtime_error(runtime_error):
    pass
class recoverable_runtime_error(system_runtime_error):
    pass
class unrecoverable_runtime_error(system_runtime_error):
    pass
class unknown_runtime_error(system_runtime_error):
    pass
class graph_program_compilation_error(poplar_error):
    pass
class graph_object_creation_error(poplar_error):
    pass
class graph_object_load_error(poplar_error):
    pass
class no_environment(poplar_error):
    pass
class unknown_vertex_type(poplar_error):
    pass
class unknown_field(poplar_error):
    pass
class control_program_error(poplar_error):
    pass
class type_error(poplar_error):
    pass
class index_error(poplar_error):
    pass
class no_size_specified(poplar_error):
    pass
class graph_connection_error(poplar_error):
    pass
class graph_cycle_error(poplar_error):
    pass
class graph_recursion_error(poplar_error):
    pass
class graph_replication_error(poplar_error):
    pass
class profiling_disabled(poplar_error):
    pass
class missing_profile_data(poplar_error):
    pass
class missing_graph_profile(poplar_error):
    pass
class missing_perf_estimate(poplar_error):
    pass
class invalid_tile_mapping(poplar_error):
    pass
class tensor_creation_error(poplar_error):
    pass
class tensor_io_state_error(poplar_error):
    pass
class tensor_metadata_error(poplar_error):
    pass
class stream_connection_error(poplar_error):
    pass
class overflow_error(poplar_error):
    pass
class memory_elem_constraints_error(poplar_error):
    pass
class graph_memory_allocation_error(poplar_error):
    pass
class stream_memory_allocation_error(poplar_error):
    pass
class invalid_machine_model(poplar_error):
    pass
class invalid_option(poplar_error):
    pass
class link_error(poplar_error):
    pass
class symbol_error(poplar_error):
    pass
class file_load_error(poplar_error):
    pass
class parse_error(poplar_error):
    pass
class ErrorCode:
    """
    Members:
    
      NONE
    
      UNKNOWN
    
      TRAP
    
      FLOATING_POINT_INVALID_OPERATION
    
      FLOATING_POINT_DIVIDE_BY_ZERO
    
      FLOATING_POINT_OVERFLOW
    
      TILE_MEMORY_BANK_CONFLICT
    
      INVALID_EXCHANGE_CONFIGURATION
    
      INVALID_ADDRESS
    
      INVALID_OPERAND
    
      INVALID_PROGRAM_COUNTER
    
      INVALID_INSTRUCTION
    
      EXCHANGE_ERROR
    
      MEMORY_ERROR
    
      IPUSOFTERR
    
      LINK_DOWN
    
      HOST_LINK_DOWN
    
      HOST_SYNC_TIMEOUT
    
      IPU_MEMORY_FAILURE
    """
    EXCHANGE_ERROR: typing.ClassVar[ErrorCode]
    FLOATING_POINT_DIVIDE_BY_ZERO: typing.ClassVar[ErrorCode]
    FLOATING_POINT_INVALID_OPERATION: typing.ClassVar[ErrorCode]
    FLOATING_POINT_OVERFLOW: typing.ClassVar[ErrorCode]
    HOST_LINK_DOWN: typing.ClassVar[ErrorCode]
    HOST_SYNC_TIMEOUT: typing.ClassVar[ErrorCode]
    INVALID_ADDRESS: typing.ClassVar[ErrorCode]
    INVALID_EXCHANGE_CONFIGURATION: typing.ClassVar[ErrorCode]
    INVALID_INSTRUCTION: typing.ClassVar[ErrorCode]
    INVALID_OPERAND: typing.ClassVar[ErrorCode]
    INVALID_PROGRAM_COUNTER: typing.ClassVar[ErrorCode]
    IPUSOFTERR: typing.ClassVar[ErrorCode]
    IPU_MEMORY_FAILURE: typing.ClassVar[ErrorCode]
    LINK_DOWN: typing.ClassVar[ErrorCode]
    MEMORY_ERROR: typing.ClassVar[ErrorCode]
    NONE: typing.ClassVar[ErrorCode]
    TILE_MEMORY_BANK_CONFLICT: typing.ClassVar[ErrorCode]
    TRAP: typing.ClassVar[ErrorCode]
    UNKNOWN: typing.ClassVar[ErrorCode]
    __members__: typing.ClassVar[dict[str, ErrorCode]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class RecoveryAction:
    """
    Members:
    
      IPU_RESET
    
      LINK_RESET
    
      PARTITION_RESET
    
      FULL_RESET
    """
    FULL_RESET: typing.ClassVar[RecoveryAction]
    IPU_RESET: typing.ClassVar[RecoveryAction]
    LINK_RESET: typing.ClassVar[RecoveryAction]
    PARTITION_RESET: typing.ClassVar[RecoveryAction]
    __members__: typing.ClassVar[dict[str, RecoveryAction]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Type:
    """
    A device element type; compare with the constants FLOAT, HALF, ...
    """
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self) -> None:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    def isFloatingPoint(self) -> bool:
        ...
    def requiresMetadata(self) -> bool:
        ...
    def toString(self) -> str:
        ...
    @property
    def numpy_dtype(self) -> numpy.dtype[typing.Any]:
        """
        The numpy dtype of host buffers for this type
        """
class Interval:
    """
    A half-open range [begin, end)
    """
    __hash__: typing.ClassVar[None] = None  # type: ignore[assignment]
    def __eq__(self, other: object) -> bool:
        ...
    @typing.overload
    def __init__(self, begin: typing.SupportsInt | typing.SupportsIndex, end: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @typing.overload
    def __init__(self, arg0: tuple) -> None:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __lt__(self, arg0: Interval) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def begin(self) -> int:
        ...
    def end(self) -> int:
        ...
    def size(self) -> int:
        ...
class TargetType:
    """
    Members:
    
      IPU
    
      IPU_MODEL
    
      CPU
    """
    CPU: typing.ClassVar[TargetType]
    IPU: typing.ClassVar[TargetType]
    IPU_MODEL: typing.ClassVar[TargetType]
    __members__: typing.ClassVar[dict[str, TargetType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SyncType:
    """
    Members:
    
      INTERNAL
    
      EXTERNAL
    
      GLOBAL
    """
    EXTERNAL: typing.ClassVar[SyncType]
    GLOBAL: typing.ClassVar[SyncType]
    INTERNAL: typing.ClassVar[SyncType]
    __members__: typing.ClassVar[dict[str, SyncType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class IpuLinkConfiguration:
    """
    Members:
    
      Default
    
      SlidingWindow
    
      BarleyTwist
    """
    BarleyTwist: typing.ClassVar[IpuLinkConfiguration]
    Default: typing.ClassVar[IpuLinkConfiguration]
    SlidingWindow: typing.ClassVar[IpuLinkConfiguration]
    __members__: typing.ClassVar[dict[str, IpuLinkConfiguration]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class IpuLinkTopology:
    """
    Members:
    
      Mesh
    
      Torus
    
      Line
    """
    Line: typing.ClassVar[IpuLinkTopology]
    Mesh: typing.ClassVar[IpuLinkTopology]
    Torus: typing.ClassVar[IpuLinkTopology]
    __members__: typing.ClassVar[dict[str, IpuLinkTopology]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Target:
    @staticmethod
    def createCPUTarget(accurateHalf: bool = False, numIPUs: typing.SupportsInt | typing.SupportsIndex = 1) -> Target:
        ...
    @staticmethod
    @typing.overload
    def createIPUTarget(numIPUs: typing.SupportsInt | typing.SupportsIndex, tilesPerIPU: typing.SupportsInt | typing.SupportsIndex, system: str, options: dict[str, str | int | float | bool] | None = {}) -> Target:
        ...
    @staticmethod
    @typing.overload
    def createIPUTarget(numIPUs: typing.SupportsInt | typing.SupportsIndex, system: str, options: dict[str, str | int | float | bool] | None = {}) -> Target:
        ...
    @staticmethod
    @typing.overload
    def createIPUTarget(system: str, options: dict[str, str | int | float | bool] | None = {}) -> Target:
        ...
    @staticmethod
    def deserialize(data: bytes) -> Target:
        """
        A target from Target.serialize() bytes (Target(std::istream&))
        """
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def createVirtualTarget(self, numIPUs: typing.SupportsInt | typing.SupportsIndex, tilesPerIPU: typing.SupportsInt | typing.SupportsIndex) -> Target:
        ...
    def getAtomicStoreGranularity(self) -> int:
        ...
    def getBytesPerTile(self) -> int:
        ...
    def getConvUnitCoeffLoadBytesPerCycle(self) -> int:
        ...
    def getConvUnitInputLoadElemsPerCycle(self, inputType: Type) -> int:
        ...
    def getConvUnitMaxPipelineDepth(self, inputType: Type) -> int:
        ...
    def getDataPathWidth(self) -> int:
        ...
    def getExchangeBytesPerCycle(self) -> int:
        ...
    def getFloatVectorWidth(self) -> int:
        ...
    def getFp16ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    def getFp16ConvUnitMaxPipelineDepth(self) -> int:
        ...
    def getFp16InFp16OutConvUnitsPerTile(self) -> int:
        ...
    def getFp16InFp32OutConvUnitsPerTile(self) -> int:
        ...
    def getFp32ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    def getFp32ConvUnitMaxPipelineDepth(self) -> int:
        ...
    def getFp32InFp32OutConvUnitsPerTile(self) -> int:
        ...
    def getFp8ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    def getFp8ConvUnitMaxPipelineDepth(self) -> int:
        ...
    def getFp8InFp16OutConvUnitsPerTile(self) -> int:
        ...
    def getGatewayMode(self) -> bool:
        ...
    def getGlobalSyncCycles(self) -> int:
        ...
    def getHalfVectorWidth(self) -> int:
        ...
    def getInstanceSize(self) -> int:
        ...
    def getIpuLinkConfiguration(self) -> IpuLinkConfiguration:
        ...
    def getIpuLinkDomainSize(self) -> int:
        ...
    def getIpuLinkTopology(self) -> IpuLinkTopology:
        ...
    def getMaxIPUSyncDelay(self) -> int:
        ...
    def getMemcpyBytesPerCycle(self) -> int:
        ...
    def getMemoryBytes(self) -> int:
        ...
    def getMinIPUSyncDelay(self) -> int:
        ...
    def getNumConvUnits(self, inputType: Type, partialType: Type) -> int:
        ...
    def getNumIPUs(self) -> int:
        ...
    def getNumStrideBits(self) -> int:
        ...
    def getNumTiles(self) -> int:
        ...
    def getNumWorkerContexts(self) -> int:
        ...
    def getQuarterVectorWidth(self) -> int:
        ...
    def getRptCountMax(self) -> int:
        ...
    def getTargetArchString(self) -> str:
        ...
    def getTargetSystemString(self) -> str:
        ...
    def getTargetType(self) -> TargetType:
        ...
    def getTileClockFrequency(self) -> float:
        ...
    def getTilesPerIPU(self) -> int:
        ...
    def getTilesPerSharedExchangeBus(self) -> int:
        ...
    def getTypeSize(self, arg0: Type) -> int:
        ...
    def getVectorWidth(self, arg0: Type) -> int:
        ...
    def getWeightsPerConvUnit(self, inputType: Type) -> int:
        ...
    def serialize(self) -> bytes:
        """
        The target as bytes (Target::serialize)
        """
    def supportsExchangeBusSharing(self) -> bool:
        ...
class Device:
    session = None
    @staticmethod
    def createCPUDevice(numIPUs: typing.SupportsInt | typing.SupportsIndex = 1) -> Device:
        ...
    @staticmethod
    def createSimulatorDevice(target: Target, options: dict[str, str | int | float | bool] | None = {}) -> Device:
        ...
    def __init__(self) -> None:
        ...
    def attach(self) -> bool:
        ...
    def createVirtualDevice(self, tilesPerIPU: typing.SupportsInt | typing.SupportsIndex) -> Device:
        ...
    def detach(self) -> None:
        ...
    def getDriverVersion(self) -> tuple[int, int, int]:
        """
        (major, minor, point); raises poplar_error on a device that is not hardware
        """
    def getId(self) -> int:
        ...
    def getTarget(self) -> Target:
        ...
    def hasGateway(self) -> bool:
        ...
    def isAttached(self) -> bool:
        ...
    def reset(self) -> None:
        ...
    def supportsRemoteBuffers(self) -> bool:
        ...
class DeviceManager:
    @staticmethod
    def createDeviceManager() -> DeviceManager:
        ...
    def __init__(self) -> None:
        ...
    def getChildDeviceIds(self, parentId: typing.SupportsInt | typing.SupportsIndex, numChildIpus: typing.SupportsInt | typing.SupportsIndex = 1) -> list[int]:
        ...
    def getDevice(self, deviceManagerId: typing.SupportsInt | typing.SupportsIndex, options: dict[str, str | int | float | bool] | None = {}) -> Device:
        ...
    @typing.overload
    def getDevices(self, type: TargetType, requiredNumIPUs: typing.SupportsInt | typing.SupportsIndex, options: dict[str, str | int | float | bool] | None = {}) -> list[Device]:
        ...
    @typing.overload
    def getDevices(self) -> list[Device]:
        ...
    def getNumDevices(self) -> int:
        ...
class GlobalExchangeFlow:
    """
    Data from IPU src to IPU dst
    """
    def __init__(self, src: typing.SupportsInt | typing.SupportsIndex, dst: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class GlobalExchangeConstraint:
    """
    A link of `bandwidth` bits per second shared by `flows`
    """
    def __init__(self, bandwidth: typing.SupportsFloat | typing.SupportsIndex, flows: collections.abc.Sequence[GlobalExchangeFlow]) -> None:
        ...
class IPUModel:
    """
    The IPU model; change its fields before createDevice()
    """
    class RelativeSyncDelayType:
        """
        Members:
        
          AUTO
        
          NO_DELAY
        """
        AUTO: typing.ClassVar[IPUModel.RelativeSyncDelayType]
        NO_DELAY: typing.ClassVar[IPUModel.RelativeSyncDelayType]
        __members__: typing.ClassVar[dict[str, IPUModel.RelativeSyncDelayType]]
        def __eq__(self, other: object) -> bool:
            ...
        def __getstate__(self) -> int:
            ...
        def __hash__(self) -> int:
            ...
        def __index__(self) -> int:
            ...
        def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
            ...
        def __int__(self) -> int:
            ...
        def __ne__(self, other: object) -> bool:
            ...
        def __repr__(self) -> str:
            ...
        def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
            ...
        def __str__(self) -> str:
            ...
        @property
        def name(self) -> str:
            ...
        @property
        def value(self) -> int:
            ...
    compileIPUCode: bool
    relativeSyncDelay: IPUModel.RelativeSyncDelayType
    supportsSuperTileSendReceive: bool
    def __init__(self, IPUVersion: str = 'ipu2') -> None:
        ...
    def createDevice(self, options: dict[str, str | int | float | bool] | None = {}, accurateHalf: bool = False, deviceManagerId: typing.SupportsInt | typing.SupportsIndex = 4294967295) -> Device:
        ...
    @property
    def IPUVersion(self) -> str:
        ...
    @property
    def dataPathWidth(self) -> int:
        ...
    @dataPathWidth.setter
    def dataPathWidth(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def exchangeBytesPerCycle(self) -> int:
        ...
    @exchangeBytesPerCycle.setter
    def exchangeBytesPerCycle(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp16ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    @fp16ConvUnitInputLoadElemsPerCycle.setter
    def fp16ConvUnitInputLoadElemsPerCycle(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp16ConvUnitMaxPipelineDepth(self) -> int:
        ...
    @fp16ConvUnitMaxPipelineDepth.setter
    def fp16ConvUnitMaxPipelineDepth(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp16InFp16OutConvUnitsPerTile(self) -> int:
        ...
    @fp16InFp16OutConvUnitsPerTile.setter
    def fp16InFp16OutConvUnitsPerTile(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp16InFp32OutConvUnitsPerTile(self) -> int:
        ...
    @fp16InFp32OutConvUnitsPerTile.setter
    def fp16InFp32OutConvUnitsPerTile(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp32ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    @fp32ConvUnitInputLoadElemsPerCycle.setter
    def fp32ConvUnitInputLoadElemsPerCycle(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def fp8ConvUnitInputLoadElemsPerCycle(self) -> int:
        ...
    @fp8ConvUnitInputLoadElemsPerCycle.setter
    def fp8ConvUnitInputLoadElemsPerCycle(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def globalExchangeConstraints(self) -> list[GlobalExchangeConstraint]:
        ...
    @globalExchangeConstraints.setter
    def globalExchangeConstraints(self, arg0: collections.abc.Sequence[GlobalExchangeConstraint]) -> None:
        ...
    @property
    def globalSyncCycles(self) -> int:
        ...
    @globalSyncCycles.setter
    def globalSyncCycles(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def instructionBytes(self) -> int:
        ...
    @instructionBytes.setter
    def instructionBytes(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def interleavedMemoryElementIndex(self) -> int:
        ...
    @interleavedMemoryElementIndex.setter
    def interleavedMemoryElementIndex(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def memcpyBytesPerCycle(self) -> int:
        ...
    @memcpyBytesPerCycle.setter
    def memcpyBytesPerCycle(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def memoryBytesPerTile(self) -> int:
        ...
    @memoryBytesPerTile.setter
    def memoryBytesPerTile(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def minIPUSyncDelay(self) -> int:
        ...
    @minIPUSyncDelay.setter
    def minIPUSyncDelay(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def numIPUs(self) -> int:
        ...
    @numIPUs.setter
    def numIPUs(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def numWorkerContexts(self) -> int:
        ...
    @numWorkerContexts.setter
    def numWorkerContexts(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def tileClockFrequency(self) -> float:
        ...
    @tileClockFrequency.setter
    def tileClockFrequency(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def tilesPerIPU(self) -> int:
        ...
    @tilesPerIPU.setter
    def tilesPerIPU(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def tilesPerSuperTile(self) -> int:
        ...
    @tilesPerSuperTile.setter
    def tilesPerSuperTile(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class UpsampleMethod:
    """
    Members:
    
      REPEAT
    """
    REPEAT: typing.ClassVar[UpsampleMethod]
    __members__: typing.ClassVar[dict[str, UpsampleMethod]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class VariableRef:
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def hash(self) -> int:
        ...
    @property
    def id(self) -> int:
        ...
class VariableInterval:
    def __repr__(self) -> str:
        ...
    @property
    def interval(self) -> Interval:
        ...
    @property
    def var(self) -> VariableRef:
        ...
class Tensor:
    """
    A view of graph variables; view methods return aliasing tensors
    """
    def __eq__(self, other: object) -> bool:
        ...
    def __getitem__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self) -> None:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def broadcast(self, N: typing.SupportsInt | typing.SupportsIndex, dimension: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def containsAliases(self) -> bool:
        ...
    def containsConstant(self) -> bool:
        ...
    def dim(self, i: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def dimRoll(self, dimIdx: typing.SupportsInt | typing.SupportsIndex, newIdx: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    def dimShuffle(self, permutation: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def dimShufflePartial(self, source: typing.Sequence[typing.SupportsInt | typing.SupportsIndex], destination: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def elementType(self) -> Type:
        ...
    def expand(self, indices: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    @typing.overload
    def flatten(self) -> Tensor:
        ...
    @typing.overload
    def flatten(self, dimBegin: typing.SupportsInt | typing.SupportsIndex, dimEnd: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def getContiguousRegions(self) -> list[Interval]:
        ...
    def getDebugStr(self) -> str:
        ...
    def getVarRegions(self) -> list[VariableInterval]:
        ...
    def getVarStr(self) -> str:
        ...
    def index(self, indices: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def intersectsWith(self, other: Tensor) -> bool:
        ...
    def isContiguous(self) -> bool:
        ...
    def isParallelWriteable(self) -> bool:
        ...
    def numElements(self) -> int:
        ...
    def rank(self) -> int:
        ...
    def reinterpret(self, type: Type) -> Tensor:
        ...
    def reshape(self, shape: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def reshapePartial(self, beginIndex: typing.SupportsInt | typing.SupportsIndex, endIndex: typing.SupportsInt | typing.SupportsIndex, newDims: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def reverse(self, dimension: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def shape(self) -> list[int]:
        ...
    def shapeToString(self) -> str:
        ...
    @typing.overload
    def slice(self, begin: typing.SupportsInt | typing.SupportsIndex, end: typing.SupportsInt | typing.SupportsIndex, dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    @typing.overload
    def slice(self, region: Interval, dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    @typing.overload
    def slice(self, begin: typing.Sequence[typing.SupportsInt | typing.SupportsIndex], end: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    @typing.overload
    def slices(self, intervals: typing.Sequence[Interval], dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
        ...
    @typing.overload
    def slices(self, intervals: collections.abc.Sequence[collections.abc.Sequence[Interval]], dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
        ...
    @typing.overload
    def slices(self, indices: typing.Sequence[typing.SupportsInt | typing.SupportsIndex], dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
        ...
    def squeeze(self, indices: typing.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
        ...
    def subSample(self, stride: typing.SupportsInt | typing.SupportsIndex, dimension: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def transpose(self) -> Tensor:
        ...
    def upsample(self, scale: typing.SupportsInt | typing.SupportsIndex, dimension: typing.SupportsInt | typing.SupportsIndex, method: UpsampleMethod = ...) -> Tensor:
        ...
    def valid(self) -> bool:
        ...
class VariableMappingMethod:
    """
    Members:
    
      NONE
    
      LINEAR
    """
    LINEAR: typing.ClassVar[VariableMappingMethod]
    NONE: typing.ClassVar[VariableMappingMethod]
    __members__: typing.ClassVar[dict[str, VariableMappingMethod]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TensorCloneMethod:
    """
    Members:
    
      PRESERVE_ORDER_AND_ALIASES
    
      CREATE_NEW_ORDER
    
      PRESERVE_ORDER_UNLESS_ALIASES
    
      GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES
    """
    CREATE_NEW_ORDER: typing.ClassVar[TensorCloneMethod]
    GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES: typing.ClassVar[TensorCloneMethod]
    PRESERVE_ORDER_AND_ALIASES: typing.ClassVar[TensorCloneMethod]
    PRESERVE_ORDER_UNLESS_ALIASES: typing.ClassVar[TensorCloneMethod]
    __members__: typing.ClassVar[dict[str, TensorCloneMethod]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TensorCloneDuplicationMethod:
    """
    Members:
    
      DUPLICATE_BY_OUTER_DIMENSION
    
      DUPLICATE_BY_TILE_CONTIGUOUS_REGION
    """
    DUPLICATE_BY_OUTER_DIMENSION: typing.ClassVar[TensorCloneDuplicationMethod]
    DUPLICATE_BY_TILE_CONTIGUOUS_REGION: typing.ClassVar[TensorCloneDuplicationMethod]
    __members__: typing.ClassVar[dict[str, TensorCloneDuplicationMethod]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class DataStreamType:
    """
    Members:
    
      HostToDeviceFIFO
    
      DeviceToHostFIFO
    
      HostToDeviceBuffer
    
      DeviceToHostBuffer
    """
    DeviceToHostBuffer: typing.ClassVar[DataStreamType]
    DeviceToHostFIFO: typing.ClassVar[DataStreamType]
    HostToDeviceBuffer: typing.ClassVar[DataStreamType]
    HostToDeviceFIFO: typing.ClassVar[DataStreamType]
    __members__: typing.ClassVar[dict[str, DataStreamType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ReplicatedStreamMode:
    """
    Members:
    
      REPLICATE
    
      BROADCAST
    """
    BROADCAST: typing.ClassVar[ReplicatedStreamMode]
    REPLICATE: typing.ClassVar[ReplicatedStreamMode]
    __members__: typing.ClassVar[dict[str, ReplicatedStreamMode]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SerializationFormat:
    """
    Members:
    
      Binary
    
      JSON
    """
    Binary: typing.ClassVar[SerializationFormat]
    JSON: typing.ClassVar[SerializationFormat]
    __members__: typing.ClassVar[dict[str, SerializationFormat]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TensorRearranger:
    def __init__(self) -> None:
        ...
    @typing.overload
    def rearrange(self, t: Tensor) -> Tensor:
        ...
    @typing.overload
    def rearrange(self, intervals: collections.abc.Sequence[Interval]) -> list[Interval]:
        ...
    @typing.overload
    def undoRearrangement(self, t: Tensor) -> Tensor:
        ...
    @typing.overload
    def undoRearrangement(self, intervals: collections.abc.Sequence[Interval]) -> list[Interval]:
        ...
    def valid(self) -> bool:
        ...
class DataStream:
    def __repr__(self) -> str:
        ...
    def elementType(self) -> Type:
        ...
    def handle(self) -> str:
        ...
    def numElements(self) -> int:
        ...
    def replicatedMode(self) -> ReplicatedStreamMode:
        ...
    def replicationFactor(self) -> int:
        ...
    def type(self) -> DataStreamType:
        ...
class RemoteBuffer:
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def elementType(self) -> Type:
        ...
    def getHostToIpuStream(self) -> DataStream:
        ...
    def getIpuToHostStream(self) -> DataStream:
        ...
    def getRepeats(self) -> int:
        ...
    def handle(self) -> str:
        ...
    def isOptimisedForMemory(self) -> bool:
        ...
    def isRearrangeOnHost(self) -> bool:
        ...
    def numElements(self) -> int:
        ...
class ComputeSet:
    def __init__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def getId(self) -> int:
        ...
class Function:
    def __init__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def getId(self) -> int:
        ...
class FunctionBufferMappingType:
    """
    Members:
    
      REMOTE
    """
    REMOTE: typing.ClassVar[FunctionBufferMappingType]
    __members__: typing.ClassVar[dict[str, FunctionBufferMappingType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class FunctionBuffer:
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def getId(self) -> int:
        ...
class HostFunction:
    def __init__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def getId(self) -> int:
        ...
class replication_factor:
    def __init__(self, n: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
class Graph:
    @typing.overload
    def __init__(self, target: Target) -> None:
        ...
    @typing.overload
    def __init__(self, device: Device) -> None:
        ...
    @typing.overload
    def __init__(self, target: Target, r: replication_factor) -> None:
        ...
    @typing.overload
    def __init__(self, device: Device, r: replication_factor) -> None:
        ...
    def _vertexFieldDirections(self, vertexType: str) -> typing.Any:
        """
        popdsl: {field: 'Input' | 'Output' | 'InOut'} for each edge field of the vertex type, as its codelet declares it; None where the backend cannot tell (the SDK's API does not say)
        """
    @typing.overload
    def addCodelets(self, src: typing.Any, type: CodeletFileType = ..., compileFlags: str = '', targetName: str = '') -> bool:
        """
        Compiles codelets: a file path (str or os.PathLike; a .gp object written by popc is loaded), a list of paths, or C++ source text (a str containing a line break or a '{'); the arguments in the order of the SDK's addCodelets(src, type, compileFlags, targetName)
        """
    @typing.overload
    def addCodelets(self, src: typing.Any, compileFlags: str, targetName: str = '') -> bool:
        """
        addCodelets(srcs, compileFlags, targetName) and addCodelets(stream, compileFlags, ...): the SDK's list and stream forms, which take the flags second
        """
    def addComputeSet(self, debugContext: str | None = '') -> ComputeSet:
        ...
    def addConstant(self, type: Type, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], values: typing.Any, debugContext: str | None = '') -> Tensor:
        """
        A constant from a scalar (broadcast to the shape) or one value per element
        """
    def addDeviceToHostFIFO(self, handle: str, elementType: Type, numElements: typing.SupportsInt | typing.SupportsIndex, options: dict[str, str | int | float | bool] | None = {}) -> DataStream:
        ...
    def addFunction(self, program: popdsl._core.program.Program) -> Function:
        ...
    def addFunctionBuffer(self, function: Function, mappingType: FunctionBufferMappingType) -> FunctionBuffer:
        ...
    def addHostFunction(self, handle: str, inputs: collections.abc.Sequence[tuple[Type, typing.SupportsInt | typing.SupportsIndex]], outputs: collections.abc.Sequence[tuple[Type, typing.SupportsInt | typing.SupportsIndex]]) -> HostFunction:
        """
        inputs/outputs: lists of (Type, element count)
        """
    def addHostToDeviceFIFO(self, handle: str, elementType: Type, numElements: typing.SupportsInt | typing.SupportsIndex, mode: ReplicatedStreamMode = ..., options: dict[str, str | int | float | bool] | None = {}) -> DataStream:
        ...
    def addRemoteBuffer(self, handle: str, elementType: Type, numElements: typing.SupportsInt | typing.SupportsIndex, repeats: typing.SupportsInt | typing.SupportsIndex = 1, rearrangeOnHost: bool = False, optimiseMemory: bool = False) -> RemoteBuffer:
        ...
    def addReplicationIndexConstant(self, debugContext: str | None = '') -> Tensor:
        ...
    @typing.overload
    def addVariable(self, type: Type, shape: typing.Sequence[typing.SupportsInt | typing.SupportsIndex], debugContext: str | None = '') -> Tensor:
        ...
    @typing.overload
    def addVariable(self, type: Type, shape: typing.Sequence[typing.SupportsInt | typing.SupportsIndex], mappingMethod: VariableMappingMethod, debugContext: str | None = '') -> Tensor:
        ...
    def addVertex(self, cs: ComputeSet, vertexType: str, connections: typing.Any | None = None) -> typing.Any:
        """
        connections: {field: Tensor, list of Tensors, or a number (a plain field's initial value, an Input's constant edge)}
        """
    @typing.overload
    def clone(self, t: Tensor, debugContext: str | None = '', method: TensorCloneMethod = ...) -> Tensor:
        ...
    @typing.overload
    def clone(self, type: Type, t: Tensor, debugContext: str | None = '', method: TensorCloneMethod = ...) -> Tensor:
        ...
    @typing.overload
    def cloneN(self, t: Tensor, N: typing.SupportsInt | typing.SupportsIndex, debugContext: str | None = '', method: TensorCloneMethod = ..., duplicationMethod: TensorCloneDuplicationMethod = ...) -> Tensor:
        ...
    @typing.overload
    def cloneN(self, type: Type, t: Tensor, N: typing.SupportsInt | typing.SupportsIndex, debugContext: str | None = '', method: TensorCloneMethod = ..., duplicationMethod: TensorCloneDuplicationMethod = ...) -> Tensor:
        ...
    def connect(self, field: FieldRef, value: typing.Any) -> None:
        ...
    def convertPhysicalTileToVirtualTile(self, physicalTileId: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def convertVirtualTileToPhysicalTile(self, virtualTileId: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def createHostRead(self, handle: str, t: Tensor, rearrangeOnHost: bool = False) -> None:
        ...
    def createHostWrite(self, handle: str, t: Tensor, rearrangeOnHost: bool = False) -> None:
        ...
    @typing.overload
    def createVirtualGraph(self, perIpuTiles: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> typing.Any:
        ...
    @typing.overload
    def createVirtualGraph(self, numTilesPerIPU: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    @typing.overload
    def createVirtualGraph(self, lowerTile: typing.SupportsInt | typing.SupportsIndex, upperTile: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def deserializeTensors(self, data: bytes, format: SerializationFormat) -> list[Tensor]:
        ...
    def findUnbroadcastTensor(self, t: Tensor) -> Tensor:
        ...
    def getComputeSets(self) -> list[ComputeSet]:
        ...
    def getFieldSize(self, field: FieldRef) -> int:
        ...
    def getMaxFieldDim(self, vertexName: str, fieldName: str, dimIndex: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def getMaxVertexFieldValue(self, vertexName: str, fieldName: str) -> float:
        ...
    def getMaxVertexFieldValueAs(self, vertexName: str, fieldName: str, dtype: typing.Any) -> typing.Any:
        """
        getMaxVertexFieldValueAs<T>, with T given as a numpy dtype
        """
    def getNumVertices(self) -> int:
        ...
    def getPerfEstimate(self, v: VertexRef) -> VertexPerfEstimate:
        ...
    def getReplicationFactor(self) -> int:
        ...
    def getSimplifyingRearranger(self, t: Tensor) -> TensorRearranger:
        ...
    def getSortedContiguousRegions(self, t: Tensor, regions: collections.abc.Sequence[Interval], removeAliasedIntervals: bool = False) -> tuple[list[list[Interval]], list[int]]:
        """
        (the regions grouped by contiguous memory in memory order, the positions of aliased elements left out)
        """
    def getTarget(self) -> Target:
        ...
    @typing.overload
    def getTileMapping(self, t: Tensor, requireComplete: bool = True, allowExternal: bool = False) -> list[list[Interval]]:
        ...
    @typing.overload
    def getTileMapping(self, v: VertexRef) -> int:
        ...
    def getTopLevelGraph(self) -> Graph:
        ...
    def getVariable(self, v: VariableRef) -> Tensor:
        ...
    def hasCodelet(self, vertexType: str) -> bool:
        ...
    def isConstant(self, v: VariableRef) -> bool:
        ...
    def outputComputeGraph(self, progs: typing.Any | None = None) -> str:
        """
        the dump as a string
        """
    def registerPerfEstimator(self, vertexTypeName: str, f: collections.abc.Callable) -> None:
        """
        f(vertex: VertexIntrospector, target: Target) returns cycles, a VertexPerfEstimate or (cycles, flops)
        """
    def reorderToSimplify(self, t: Tensor, others: collections.abc.Sequence[Tensor] = [], requireSimplestOrder: bool = True) -> tuple[Tensor, list[Tensor]]:
        """
        (t reordered, the others reordered the same way): Python tensors are values, so they are returned
        """
    def serializeTensors(self, tensors: collections.abc.Sequence[Tensor], format: SerializationFormat) -> bytes:
        """
        the serialized tensors as bytes
        """
    def setFieldSize(self, field: FieldRef, size: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @typing.overload
    def setInitialValue(self, t: Tensor, values: typing.Any) -> None:
        ...
    @typing.overload
    def setInitialValue(self, field: FieldRef, values: typing.Any) -> None:
        ...
    def setInitialValueHalf(self, field: FieldRef, values: typing.Any) -> None:
        ...
    @typing.overload
    def setPerfEstimate(self, v: VertexRef, estimate: VertexPerfEstimate) -> None:
        ...
    @typing.overload
    def setPerfEstimate(self, v: VertexRef, cycles: typing.SupportsInt | typing.SupportsIndex, flops: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    @typing.overload
    def setTileMapping(self, t: Tensor, tileNum: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @typing.overload
    def setTileMapping(self, t: Tensor, mapping: collections.abc.Sequence[collections.abc.Sequence[Interval]]) -> None:
        ...
    @typing.overload
    def setTileMapping(self, v: VertexRef, tileNum: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class CodeletFileType:
    """
    Members:
    
      PreprocessedAsmSource
    
      AsmSource
    
      CSource
    
      CppSource
    
      IrSource
    
      Object
    
      Auto
    """
    AsmSource: typing.ClassVar[CodeletFileType]
    Auto: typing.ClassVar[CodeletFileType]
    CSource: typing.ClassVar[CodeletFileType]
    CppSource: typing.ClassVar[CodeletFileType]
    IrSource: typing.ClassVar[CodeletFileType]
    Object: typing.ClassVar[CodeletFileType]
    PreprocessedAsmSource: typing.ClassVar[CodeletFileType]
    __members__: typing.ClassVar[dict[str, CodeletFileType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class FieldRef:
    def __getitem__(self, index: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def getIndex(self) -> int:
        ...
    def isIndexed(self) -> bool:
        ...
    @property
    def fieldId(self) -> int:
        ...
    @property
    def vertex(self) -> VertexRef:
        ...
class VertexRef:
    def __eq__(self, other: object) -> bool:
        ...
    def __getitem__(self, field: str) -> typing.Any:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def getId(self) -> int:
        ...
class VertexPerfEstimate:
    __hash__: typing.ClassVar[None] = None  # type: ignore[assignment]
    def __eq__(self, other: object) -> bool:
        ...
    def __init__(self, cycles: typing.SupportsInt | typing.SupportsIndex = 0, flops: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def cycles(self) -> int:
        ...
    @cycles.setter
    def cycles(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def flops(self) -> int:
        ...
    @flops.setter
    def flops(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class FieldDataSize:
    def size(self) -> int:
        ...
class FieldData:
    def __getitem__(self, i: typing.SupportsInt | typing.SupportsIndex) -> FieldDataSize:
        ...
    def getInitialValue(self, target: Target) -> typing.Any:
        ...
    def getInitialValues(self, target: Target) -> typing.Any:
        ...
    def getSizeAtIndex(self, i: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def name(self) -> str:
        ...
    def rank(self) -> int:
        ...
    def size(self) -> int:
        ...
class VertexIntrospector:
    def getComputeSet(self) -> ComputeSet:
        ...
    def getFieldInfo(self, name: str) -> FieldData:
        ...
class Executable:
    @staticmethod
    def deserialize(data: bytes, checkPackageHash: bool = True) -> Executable:
        ...
    def serialize(self) -> bytes:
        """
        The executable as bytes (Executable::serialize)
        """
class RuntimeOptions:
    """
    Options of one run: the streamCallbacks.* and target.sync* keys
    """
    def __init__(self, flags: dict[str, str | int | float | bool] | None) -> None:
        ...
class StreamRows:
    """
    The rows of a stream that Engine.feedStream or collectStream connected
    """
    def take(self) -> numpy.ndarray:
        """
        A device-to-host stream's rows so far, flat (count * numElements), without a copy; the buffer starts empty again
        """
    @property
    def count(self) -> int:
        """
        The rows copied so far (since take(), for a device-to-host stream)
        """
class Engine:
    class TimerTimePoint:
        """
        A time stamp of Engine.getTimeStamp()
        """
    @typing.overload
    def __init__(self, graph: Graph, programs: typing.Any, options: dict[str, str | int | float | bool] | None = {}, progress: typing.Any | None = None) -> None:
        """
        Compiles a graph with one program or a list of programs (run by index)
        """
    @typing.overload
    def __init__(self, executable: Executable, options: dict[str, str | int | float | bool] | None = {}, progress: typing.Any | None = None) -> None:
        """
        An engine for a compiled (or deserialized) executable
        """
    def _hostTensor(self, handle: str, read: bool) -> typing.Any:
        """
        Emulator: (element type, number of elements) of a host read (read=True) or write handle; None when there is no such handle (always on the sdk backend, whose Engine does not say)
        """
    def collectStream(self, handle: str, replicaIndex: typing.SupportsInt | typing.SupportsIndex | None = None, stream: typing.Any | None = None, expected: typing.SupportsInt | typing.SupportsIndex = 0) -> StreamRows:
        """
        popdsl: each copy to device-to-host stream `handle` appends a row to a host buffer (room made for `expected` rows), with no Python call; StreamRows.take() returns them. For every replica, or replica replicaIndex only
        """
    def connectHostFunction(self, handle: str, replicaIndex: typing.SupportsInt | typing.SupportsIndex, callback: collections.abc.Callable, arguments: typing.Any | None = None) -> None:
        """
        callback(inputs, outputs): numpy arrays (flat, one per argument); write the results into outputs. arguments=(ins, outs), lists of (poplar.Type, numElements), describes them where the engine cannot (an engine made from an Executable on the sdk backend)
        """
    def connectStream(self, handle: str, buffer: typing.Any) -> None:
        """
        Connects a numpy array as a circular buffer: each copy uses the next elements, wrapping
        """
    @typing.overload
    def connectStreamToCallback(self, handle: str, callback: collections.abc.Callable, stream: typing.Any | None = None) -> None:
        """
        callback(array): host-to-device fills the array (or returns the data); device-to-host receives a copy. stream=(poplar.Type, numElements, toDevice) describes the buffer where the engine cannot (an engine made from an Executable on the sdk backend). Connected for every replica: called for each replica's copies (a BROADCAST stream's only for replica 0's, which every replica receives)
        """
    @typing.overload
    def connectStreamToCallback(self, handle: str, replicaIndex: typing.SupportsInt | typing.SupportsIndex, callback: collections.abc.Callable, stream: typing.Any | None = None) -> None:
        """
        As connectStreamToCallback(handle, callback), for the copies of replica replicaIndex only
        """
    def copyFromRemoteBuffer(self, handle: str, dst: typing.Any, repeatIndex: typing.SupportsInt | typing.SupportsIndex, replicationIndex: typing.SupportsInt | typing.SupportsIndex = 0, buffer: RemoteBuffer | None = None) -> numpy.ndarray:
        """
        Reads one row of a remote buffer into a writeable C-contiguous numpy array of the row's size; buffer= as for copyToRemoteBuffer
        """
    def copyToRemoteBuffer(self, src: typing.Any, handle: str, repeatIndex: typing.SupportsInt | typing.SupportsIndex, replicationIndex: typing.SupportsInt | typing.SupportsIndex = 0, buffer: RemoteBuffer | None = None) -> None:
        """
        Writes one row of a remote buffer from a C-contiguous numpy array of the row's size; buffer= describes the buffer where the engine cannot (made from an executable on the sdk backend)
        """
    def deploy(self) -> None:
        ...
    def disableExecutionProfiling(self) -> None:
        ...
    def enableExecutionProfiling(self) -> None:
        ...
    def feedStream(self, handle: str, rows: typing.Any, exhausted: typing.Any, replicaIndex: typing.SupportsInt | typing.SupportsIndex | None = None, stream: typing.Any | None = None) -> StreamRows:
        """
        popdsl: each copy from host-to-device stream `handle` takes the next row of `rows` (a C-contiguous array of the stream's dtype, whole rows), with no Python call; a copy that finds none left calls exhausted(), which raises. For every replica, or replica replicaIndex only (as connectStreamToCallback). Returns the StreamRows that counts the rows read
        """
    def getEngineOptions(self) -> dict[str, str | int | float | bool] | None:
        ...
    def getProfileData(self) -> dict:
        """
        Emulator only: the recorded profile as a dict (cycles estimated)
        """
    def getRandomSeed(self) -> int:
        ...
    def getReport(self, reportExecution: bool = True) -> typing.Any:
        """
        libpva's report of the engine (a pva.Report), as Engine::getReport gives it in C++; cycles are estimated
        """
    def getTimeStamp(self) -> Engine.TimerTimePoint:
        ...
    def listStreams(self) -> list[str]:
        ...
    def load(self, device: Device) -> None:
        ...
    def loadAndRun(self, device: Device, prog: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    @typing.overload
    def prepare(self, device: Device) -> None:
        ...
    @typing.overload
    def prepare(self, device: Device, runtimeOptions: RuntimeOptions) -> None:
        ...
    @typing.overload
    def prepare(self, device: Device, runtimeOptions: dict[str, str | int | float | bool] | None) -> None:
        ...
    def printProfileSummary(self, out: typing.Any, opt: dict[str, str | int | float | bool] | None = {}) -> None:
        """
        Writes the profile summary to a Python file object (e.g. sys.stdout); cycles are estimated
        """
    def readTensor(self, handle: str, buffer: typing.Any) -> numpy.ndarray:
        """
        Reads a host-read handle into a writeable C-contiguous numpy array
        """
    def reportTiming(self, start: Engine.TimerTimePoint, end: Engine.TimerTimePoint) -> str:
        ...
    def resetExecutionProfile(self) -> None:
        ...
    @typing.overload
    def run(self, prog: typing.SupportsInt | typing.SupportsIndex = 0, debugName: str = '') -> None:
        ...
    @typing.overload
    def run(self, prog: typing.SupportsInt | typing.SupportsIndex, debugName: str, runtimeOptions: RuntimeOptions) -> None:
        ...
    @typing.overload
    def run(self, prog: typing.SupportsInt | typing.SupportsIndex, debugName: str, runtimeOptions: dict[str, str | int | float | bool] | None) -> None:
        ...
    def setPrintTensorStream(self, file: typing.Any) -> None:
        """
        A Python file object for PrintTensor output (default: sys.stdout at each run)
        """
    def setRandomSeed(self, seed: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def stop(self) -> None:
        """
        Ends the run in progress at its next step or loop iteration (from another thread, a stream callback or a host function)
        """
    def writeProfileReport(self, directory: str) -> list[str]:
        """
        Emulator only: writes profile_summary.txt and profile.json now (not again when the engine is destroyed); returns the paths
        """
    def writeTensor(self, handle: str, buffer: typing.Any) -> None:
        """
        Writes a C-contiguous numpy array (raw bytes) to a host-write handle
        """
class _ThreadInstances:
    """
    Emulator: instances as threads of one process (popdsl.distributed.run_in_threads)
    """
    def __init__(self, instances: typing.SupportsInt | typing.SupportsIndex, timeoutSeconds: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    def abort(self, why: str) -> None:
        ...
    def allGather(self, index: typing.SupportsInt | typing.SupportsIndex, mine: bytes) -> list:
        ...
    def release(self) -> None:
        """
        Engines made on this thread from now on are no instance
        """
    def use(self, index: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Engines made on this thread from now on are instance `index`
        """
class FloatingPointBehaviour:
    div0: bool
    esr: bool
    inv: bool
    nanoo: bool
    oflo: bool
    def __init__(self, inv: bool = True, div0: bool = True, oflo: bool = True, esr: bool = True, nanoo: bool = True) -> None:
        ...
def _executableInterface(arg0: Executable) -> typing.Any:
    """
    Emulator: the executable's data streams (handle -> (element type, number of elements, to device)) and host functions (handle -> (inputs, outputs), lists of (element type, number of elements)); None on the sdk backend, which cannot look inside an executable
    """
def _executableSections(arg0: Executable) -> dict:
    """
    Emulator: the canonical serialized sections (target, graph, programs, options), for cache keys
    """
def _serializedCodelets(data: bytes) -> typing.Any:
    """
    The names of the codelets Executable.deserialize(data) would compile and load into this process, read without compiling any (names not UTF-8 are escaped); None on the sdk backend, whose executables hold IPU code
    """
def _serializedSections(data: bytes) -> dict:
    """
    Emulator: the canonical sections of a serialized executable, read without building it (nothing in it is compiled)
    """
def _setProcessInstanceExchange(instances: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex, allGather: typing.Any) -> None:
    """
    Emulator: the all-gather (bytes -> list of every instance's bytes) that engines running a slice of the replicas (target.firstRuntimeReplica/numberRuntimeReplica) send their collectives through; None: none
    """
def append(first: Tensor, second: Tensor, dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    ...
def compileGraph(graph: Graph, programs: typing.Any, options: dict[str, str | int | float | bool] | None = {}, progress: typing.Any | None = None) -> Executable:
    ...
@typing.overload
def concat(first: Tensor, second: Tensor, dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    ...
@typing.overload
def concat(ts: typing.Sequence[Tensor], dimension: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    ...
def cycleCount(graph: Graph, prog: popdsl._core.program.Sequence, tile: typing.SupportsInt | typing.SupportsIndex, syncType: SyncType, debugContext: str | None = '') -> Tensor:
    """
    Wraps `prog` (changed in place) so it writes the cycles it took; returns the [lo32, hi32] tensor
    """
@typing.overload
def cycleStamp(graph: Graph, prog: popdsl._core.program.Sequence, tile: typing.SupportsInt | typing.SupportsIndex, syncType: SyncType, debugContext: str | None = '') -> Tensor:
    """
    Appends a sync and a [lo32, hi32] snapshot of the cycle counter on `tile` to `prog`
    """
@typing.overload
def cycleStamp(graph: Graph, prog: popdsl._core.program.Sequence, tiles: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], syncType: SyncType, debugContext: str | None = '') -> list[Tensor]:
    ...
def errorCodeFromString(name: str) -> ErrorCode:
    ...
def errorCodeToString(code: ErrorCode) -> str:
    ...
def getHwSeeds(graph: Graph, prog: popdsl._core.program.Sequence, debugContext: str | None = '') -> Tensor:
    ...
def readJSON(json: str) -> dict[str, str | int | float | bool] | None:
    """
    Parses a JSON object of options into a dict of strings
    """
@typing.overload
def setFloatingPointBehaviour(graph: Graph, prog: popdsl._core.program.Sequence, behaviour: FloatingPointBehaviour, debugContext: str | None = '') -> None:
    ...
@typing.overload
def setFloatingPointBehaviour(graph: Graph, prog: popdsl._core.program.Sequence, behaviour: Tensor, debugContext: str | None = '') -> None:
    ...
def setHwSeeds(graph: Graph, hwSeeds: Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '') -> None:
    ...
def setStochasticRounding(graph: Graph, prog: popdsl._core.program.Sequence, behaviour: bool, debugContext: str | None = '') -> None:
    ...
BOOL: Type
CHAR: Type
DOUBLE: Type
FLOAT: Type
HALF: Type
INT: Type
LONG: Type
LONGLONG: Type
QUARTER: Type
QUARTER_METADATA: Type
SHORT: Type
SIGNED: Type
SIGNED_CHAR: Type
SIGNED_INT: Type
SIGNED_SHORT: Type
UNSIGNED: Type
UNSIGNED_CHAR: Type
UNSIGNED_INT: Type
UNSIGNED_LONG: Type
UNSIGNED_LONGLONG: Type
UNSIGNED_SHORT: Type
