"""Scalar, pointer and block types of tile.language, and their MLIR spelling."""


class dtype:
    """A scalar element type: ``tl.float32``, ``tl.int8``, ``tl.uint32``, ..."""

    SINT = ("int1", "int8", "int16", "int32", "int64")
    UINT = ("uint8", "uint16", "uint32", "uint64")
    FP = ("float8e5", "float8e4nv", "float16", "bfloat16", "float32", "float64",
          "float8e4b15", "float8e4b8", "float8e5b16")
    # Triton's other fp8 formats (e4m3 with bias 15; AMD's fnuz e4m3 and
    # e5m2): named, so that code mentioning them imports, but refused
    # wherever a kernel would compute with them.
    UNSUPPORTED = {"float8e4b15": "Triton lowers it in software for GPUs "
                                  "before sm_89",
                   "float8e4b8": "an AMD (fnuz) format",
                   "float8e5b16": "an AMD (fnuz) format"}

    _BITS = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
             "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
             "float8e5": 8, "float8e4nv": 8, "float16": 16, "bfloat16": 16,
             "float32": 32, "float64": 64, "float8e4b15": 8, "float8e4b8": 8,
             "float8e5b16": 8, "void": 0}
    _MLIR = {"float8e5": "f8E5M2", "float8e4nv": "f8E4M3FN", "float16": "f16",
             "bfloat16": "bf16", "float32": "f32", "float64": "f64"}
    # Triton's signature spellings: '*fp16', 'i32', 'u8', ...
    _SHORT = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32",
              "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
              "uint64": "u64", "float8e5": "fp8e5", "float8e4nv": "fp8e4nv",
              "float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
              "float64": "fp64", "float8e4b15": "fp8e4b15",
              "float8e4b8": "fp8e4b8", "float8e5b16": "fp8e5b16",
              "void": "void"}

    # Triton's name lists (its spellings, which the constructor accepts).
    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = ("fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16",
                "bf16", "fp32", "fp64")
    STANDARD_FP_TYPES = ("fp16", "bf16", "fp32", "fp64")
    OTHER_TYPES = ("void",)
    _TRITON_NAMES = {"fp8e4b15": "float8e4b15", "fp8e4nv": "float8e4nv",
                     "fp8e4b8": "float8e4b8", "fp8e5": "float8e5",
                     "fp8e5b16": "float8e5b16", "fp16": "float16",
                     "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}

    def __init__(self, name):
        name = self._TRITON_NAMES.get(name, name)
        if name not in self._BITS:
            raise ValueError("unknown dtype %r" % name)
        self.name = name

    # Classification.
    def is_floating(self):
        return self.name in self.FP

    def is_int(self):
        return self.name in self.SINT or self.name in self.UINT

    def is_int_signed(self):
        return self.name in self.SINT

    def is_int_unsigned(self):
        return self.name in self.UINT

    def is_bool(self):
        return self.name == "int1"

    def is_void(self):
        return self.name == "void"

    def is_fp8(self):
        return self.name.startswith("float8")

    def is_ptr(self):
        return False

    def is_const(self):
        return False

    def is_block(self):
        return False

    @property
    def primitive_bitwidth(self):
        return self._BITS[self.name]

    # The float formats' fields: (mantissa bits, exponent bias).
    _FP_FIELDS = {"float8e4b15": (3, 15), "float8e4nv": (3, 7),
                  "float8e4b8": (3, 8), "float8e5": (2, 15),
                  "float8e5b16": (2, 16), "float16": (10, 15),
                  "bfloat16": (7, 127), "float32": (23, 127),
                  "float64": (52, 1023)}

    def _fp_field(self, index, what):
        if self.name not in self._FP_FIELDS:
            raise AttributeError("%s is not a floating-point type: it has no %s"
                                 % (self.name, what))
        return self._FP_FIELDS[self.name][index]

    @property
    def fp_mantissa_width(self):
        return self._fp_field(0, "fp_mantissa_width")

    @property
    def exponent_bias(self):
        return self._fp_field(1, "exponent_bias")

    @property
    def scalar(self):
        return self

    def to_ir(self):
        """The MLIR type. Integers are signless: signedness lives in the ops."""
        if self.is_void():
            raise ValueError("tl.void is the type of no value; nothing can "
                             "be computed with it")
        if self.is_int():
            return "i%d" % self.primitive_bitwidth
        if self.name in self.UNSUPPORTED:
            raise ValueError("tl.%s is not supported by tile (%s); use "
                             "tl.float8e4nv or tl.float8e5"
                             % (self.name, self.UNSUPPORTED[self.name]))
        return self._MLIR[self.name]

    @property
    def short_name(self):
        return self._SHORT[self.name]

    def __eq__(self, other):
        return type(other) is type(self) and other.name == self.name

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __repr__(self):
        return "tl." + self.name

    __str__ = __repr__


class pointer_type(dtype):
    """A pointer to elements of ``element_ty`` (address space 1: global)."""

    def __init__(self, element_ty, address_space=1, const=False):
        self.element_ty = element_ty
        self.address_space = address_space
        # A pointer to constant data (a parameter annotated `tl.const`):
        # nothing may be stored through it. Part of the type, as in Triton.
        self.const = bool(const)
        self.name = "pointer<%s>" % element_ty.name

    # The other is_*() answer False: "pointer<...>" names no scalar kind.
    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    @property
    def primitive_bitwidth(self):
        return 64

    def to_ir(self):
        if self.address_space == 1:
            return "!tile.ptr<%s>" % self.element_ty.to_ir()
        return "!tile.ptr<%s, %d>" % (self.element_ty.to_ir(), self.address_space)

    @property
    def short_name(self):
        return "*" + self.element_ty.short_name

    def __eq__(self, other):
        return (isinstance(other, pointer_type) and
                other.element_ty == self.element_ty and
                other.address_space == self.address_space and
                other.const == self.const)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space, self.const))

    def __repr__(self):
        return "pointer<%s%r>" % ("const " if self.const else "", self.element_ty)


# Element size in bytes and CUtensorMapDataType of each dtype TMA copies, by
# short name (the front end picks TMA copies by it; the runtime encodes
# descriptors with it).
TMA_DATA_TYPES = {
    "u8": (1, 0), "i8": (1, 0), "fp8e4nv": (1, 0), "fp8e5": (1, 0),
    "i1": (1, 0), "i16": (2, 1), "u16": (2, 1), "fp16": (2, 6), "bf16": (2, 9),
    "i32": (4, 3), "u32": (4, 2), "fp32": (4, 7), "i64": (8, 5), "u64": (8, 4),
    "fp64": (8, 8),
}


def tma_block_supported(element, block_shape):
    """Whether the compiler stages `block_shape` blocks of `element` through
    TMA copies: its rule (getTMASharedEncoding in TileGPUAttrs.cpp and the
    256-row TMA box): two dimensions, rows a multiple of 8 and at most 256,
    each row a multiple of 32 bytes (the narrowest swizzle), and an element
    type the TMA unit knows."""
    if element.short_name not in TMA_DATA_TYPES or element.is_bool() or \
            len(block_shape) != 2:
        return False
    rows, cols = (int(s) for s in block_shape)
    row_bytes = cols * element.primitive_bitwidth // 8
    return rows % 8 == 0 and rows <= 256 and row_bytes % 32 == 0


# The most elements one block may hold (Triton's TRITON_MAX_TENSOR_NUMEL):
# a block lives in the registers of one CTA, and larger ones would only
# compile for minutes before failing for lack of registers.
TILE_MAX_TENSOR_NUMEL = 1 << 20


class block_type(dtype):
    """A block (tile) of ``element_ty`` with a static, power-of-two shape."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(int(d) for d in shape)
        self.name = "block"
        numel = 1
        for d in self.shape:
            numel *= d
        if numel > TILE_MAX_TENSOR_NUMEL:
            raise ValueError("a block of shape %s has %d elements, more than "
                             "the %d (2**20) tile allows in one block"
                             % (list(self.shape), numel, TILE_MAX_TENSOR_NUMEL))

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    def __getattr__(self, name):
        # is_floating(), is_int(), ... answer for the element type.
        if name.startswith("is_"):
            return getattr(self.element_ty, name)
        raise AttributeError(name)

    @property
    def primitive_bitwidth(self):
        return self.element_ty.primitive_bitwidth

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def to_ir(self):
        return "tensor<%sx%s>" % ("x".join(map(str, self.shape)),
                                  self.element_ty.to_ir())

    def __eq__(self, other):
        return (isinstance(other, block_type) and
                other.element_ty == self.element_ty and other.shape == self.shape)

    def __hash__(self):
        return hash(("block", self.element_ty, self.shape))

    def __repr__(self):
        return "<%s, %r>" % ("x".join(map(str, self.shape)), self.element_ty)


class tensor_descriptor_type(dtype):
    """A TMA tensor descriptor whose blocks are ``block_type``s.
    `ragged_rows`: the tensor's rows are not a whole number of 16 bytes
    (a host descriptor says so in its signature, 'tensordesc<fp16[64,64],
    ragged>'): TMA loads from it are exact, but a TMA store would write up
    to the next 16 bytes past each row's end (measured on the H100), so
    stores through it are refused."""

    def __init__(self, block_type, ragged_rows=False):
        self.block_type = block_type
        self.ragged_rows = bool(ragged_rows)
        self.name = "tensordesc"

    @property
    def element_ty(self):
        return self.block_type.element_ty

    def is_block(self):
        return False

    @property
    def scalar(self):
        return self

    @property
    def primitive_bitwidth(self):
        return 1024

    def to_ir(self):
        return "!tile.tensordesc<%s>" % self.block_type.to_ir()

    @property
    def short_name(self):
        return "tensordesc<%s%s%s>" % (self.element_ty.short_name,
                                       list(self.block_type.shape),
                                       ",ragged" if self.ragged_rows else "")

    def __eq__(self, other):
        return (isinstance(other, tensor_descriptor_type) and
                other.block_type == self.block_type and
                other.ragged_rows == self.ragged_rows)

    def __hash__(self):
        return hash(("tensordesc", self.block_type, self.ragged_rows))

    def __repr__(self):
        return "tensor_descriptor<%r>" % (self.block_type,)


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e5 = dtype("float8e5")
float8e4nv = dtype("float8e4nv")
float8e4b15 = dtype("float8e4b15")
float8e4b8 = dtype("float8e4b8")
float8e5b16 = dtype("float8e5b16")
float16 = dtype("float16")
bfloat16 = dtype("bfloat16")
float32 = dtype("float32")
float64 = dtype("float64")
# The type of no value (what Triton's store returns); named, never computed.
void = dtype("void")

_BY_SHORT = {d.short_name: d for d in (int1, int8, int16, int32, int64, uint8,
                                        uint16, uint32, uint64, float8e5,
                                        float8e4nv, float16, bfloat16, float32,
                                        float64)}
_BY_SHORT.update({"fp8e4m3": float8e4nv, "fp8e5m2": float8e5, "f16": float16,
                  "f32": float32, "f64": float64, "b1": int1})

# Element type names (torch's and tile's) to signature spellings, under
# Triton's name.
type_canonicalisation_dict = {d.name: d.short_name for d in _BY_SHORT.values()}
type_canonicalisation_dict.update({"bool": int1.short_name,
                                   "float8_e4m3fn": float8e4nv.short_name,
                                   "float8_e5m2": float8e5.short_name,
                                   "half": float16.short_name,
                                   "float": float32.short_name,
                                   "double": float64.short_name,
                                   "int": int32.short_name, "void": "void"})
type_canonicalisation_dict.update({v: v for v in
                                   list(type_canonicalisation_dict.values())})


def parse_signature_type(text):
    """Triton's signature strings: '*fp16', 'i32', 'fp32', ...; None if unknown."""
    text = text.strip()
    if text.startswith("tensordesc<") and text.endswith(">"):
        # 'tensordesc<fp16[64, 64]>', Triton's spelling.
        inner = text[len("tensordesc<"):-1]
        ragged = inner.replace(" ", "").endswith(",ragged")
        if ragged:
            inner = inner[:inner.rindex(",")]
        element, _, shape = inner.partition("[")
        element = _BY_SHORT.get(element.strip())
        try:
            dims = [int(x) for x in shape.rstrip("]").split(",")]
        except ValueError:
            return None
        if element is None or not shape.endswith("]") or not dims:
            return None
        return tensor_descriptor_type(block_type(element, dims), ragged)
    if text.startswith("*"):
        inner = parse_signature_type(text[1:])
        return pointer_type(inner) if inner is not None else None
    return _BY_SHORT.get(text)


# The tile dtype name of a host array's element type: torch dtypes by their
# str(), __cuda_array_interface__ typestrs (numpy's, little-endian).
TORCH_DTYPE_NAMES = {
    "torch.bool": "i1", "torch.int8": "i8", "torch.int16": "i16",
    "torch.int32": "i32", "torch.int64": "i64", "torch.uint8": "u8",
    "torch.uint16": "u16", "torch.uint32": "u32", "torch.uint64": "u64",
    "torch.float16": "fp16", "torch.bfloat16": "bf16", "torch.float32": "fp32",
    "torch.float64": "fp64", "torch.float8_e4m3fn": "fp8e4nv",
    "torch.float8_e5m2": "fp8e5"}


def host_element_name(element):
    """The tile dtype name of a tensor-like's `dtype`: a torch dtype, or the
    tile dtype that `tile.reinterpret` gave it; None when tile has none."""
    if isinstance(element, dtype) and not element.is_ptr() and \
            not element.is_block():
        return element.short_name
    return TORCH_DTYPE_NAMES.get(str(element))


ARRAY_TYPESTR_NAMES = {
    "|b1": "i1", "|i1": "i8", "<i2": "i16", "<i4": "i32", "<i8": "i64",
    "|u1": "u8", "<u2": "u16", "<u4": "u32", "<u8": "u64", "<f2": "fp16",
    "<f4": "fp32", "<f8": "fp64"}


def str_to_ty(name, c=None):
    """Triton's tl.str_to_ty: a signature spelling ('fp32', '*fp16', ...) as
    a type. `c` is Triton's constexpr value for "constexpr" spellings, which
    have no type here."""
    if name == "constexpr":
        raise ValueError("a constexpr has no tile.language type")
    ty = parse_signature_type(name)
    if ty is None:
        raise ValueError("unknown type %r" % (name,))
    return ty
