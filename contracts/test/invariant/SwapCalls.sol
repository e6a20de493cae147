// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { V1ExactInputSingleParams, V1ExactInputParams } from "../helpers/SwapRouterV1.sol";
import { TestSwapRouter } from "../../src/test-assets/TestSwapRouter.sol";

/// Calldata for the five swaps MaxSlippageEnforcer decodes, well-formed or broken in a way that is
/// malformed by construction, for MaxSlippageHandler.
abstract contract SwapCalls {
    bytes4 internal constant EXACT_INPUT_SINGLE_02 = 0x04e45aaf;
    bytes4 internal constant EXACT_INPUT_02 = 0xb858183f;
    bytes4 internal constant EXACT_INPUT_SINGLE_V1 = 0x414bf389;
    bytes4 internal constant EXACT_INPUT_V1 = 0xc04b8d59;
    bytes4 internal constant SWAP_EXACT_TOKENS_V2 = 0x38ed1739;
    address internal constant RECIPIENT = address(0xA11CE);
    uint256 internal constant DEADLINE = 1e10;

    /// A swap as the handler built it: what the enforcer must read from the calldata.
    struct Swap {
        bytes4 selector;
        address tokenIn;
        address tokenOut;
        address[] middle; // intermediate path tokens (no feed needed)
        uint256 amountIn;
        uint256 minOut;
    }

    function _swapCall(
        Swap memory s
    ) internal pure returns (bytes memory) {
        bytes4 sel = s.selector;
        if (sel == EXACT_INPUT_SINGLE_02) {
            return abi.encodeWithSelector(
                sel, TestSwapRouter.ExactInputSingleParams(s.tokenIn, s.tokenOut, 500, RECIPIENT, s.amountIn, s.minOut, 0)
            );
        }
        if (sel == EXACT_INPUT_SINGLE_V1) {
            return abi.encodeWithSelector(
                sel, V1ExactInputSingleParams(s.tokenIn, s.tokenOut, 3000, RECIPIENT, DEADLINE, s.amountIn, s.minOut, 0)
            );
        }
        if (sel == EXACT_INPUT_02) {
            return abi.encodeWithSelector(sel, TestSwapRouter.ExactInputParams(_v3Path(s), RECIPIENT, s.amountIn, s.minOut));
        }
        if (sel == EXACT_INPUT_V1) {
            return abi.encodeWithSelector(sel, V1ExactInputParams(_v3Path(s), RECIPIENT, DEADLINE, s.amountIn, s.minOut));
        }
        return abi.encodeWithSelector(sel, s.amountIn, s.minOut, _v2Path(s), RECIPIENT, DEADLINE);
    }

    /// tokenIn, fee, [middle, fee]..., tokenOut: 20 + 23k bytes.
    function _v3Path(
        Swap memory s
    ) internal pure returns (bytes memory path) {
        path = abi.encodePacked(s.tokenIn);
        for (uint256 i; i < s.middle.length; ++i) {
            path = abi.encodePacked(path, uint24(500), s.middle[i]);
        }
        path = abi.encodePacked(path, uint24(3000), s.tokenOut);
    }

    function _v2Path(
        Swap memory s
    ) internal pure returns (address[] memory path) {
        path = new address[](s.middle.length + 2);
        path[0] = s.tokenIn;
        for (uint256 i; i < s.middle.length; ++i) {
            path[i + 1] = s.middle[i];
        }
        path[path.length - 1] = s.tokenOut;
    }

    /// Calldata the enforcer must refuse with MalformedSwap(selector), whatever the tokens and amounts:
    /// cut inside the fixed params or the path, an address word with dirty high bits, a V3 path whose
    /// length is not 20 + 23k (k >= 1), a V2 path of one token.
    function _malformedCall(
        Swap memory s,
        uint256 r
    ) internal pure returns (bytes memory cd) {
        bytes4 sel = s.selector;
        bool single = sel == EXACT_INPUT_SINGLE_02 || sel == EXACT_INPUT_SINGLE_V1;
        bool v3 = sel == EXACT_INPUT_02 || sel == EXACT_INPUT_V1;
        uint256 variant = r % 3;
        if (variant == 0) {
            // Truncated: a single swap anywhere; a V3 swap inside its path (the padding after the path may
            // go); a V2 swap anywhere (its last word is the last path address).
            cd = _swapCall(s);
            uint256 end = cd.length;
            if (v3) end = 4 + 32 + (sel == EXACT_INPUT_V1 ? 160 : 128) + 32 + _v3Path(s).length;
            uint256 keep = 4 + (r >> 8) % (end - 4);
            assembly ("memory-safe") {
                mstore(cd, keep)
            }
        } else if (variant == 1 && single) {
            cd = _swapCall(s);
            uint256 at = 4 + 32 * ((r >> 8) % 2); // the tokenIn or tokenOut word
            cd[at + 2] = 0x01;
        } else if (v3) {
            bytes memory path = (r >> 8) % 2 == 0
                ? abi.encodePacked(s.tokenIn)  // 20 bytes: no hop
                : abi.encodePacked(_v3Path(s), bytes1(0x00)); // 20 + 23k + 1
            cd = sel == EXACT_INPUT_02
                ? abi.encodeWithSelector(sel, TestSwapRouter.ExactInputParams(path, RECIPIENT, s.amountIn, s.minOut))
                : abi.encodeWithSelector(sel, V1ExactInputParams(path, RECIPIENT, DEADLINE, s.amountIn, s.minOut));
        } else if (single) {
            cd = _swapCall(s);
            cd[4 + 32 * ((r >> 8) % 2) + 11] = 0x80; // the top byte of an address's high 12 bytes
        } else {
            address[] memory path = new address[](1);
            path[0] = s.tokenIn;
            cd = abi.encodeWithSelector(sel, s.amountIn, s.minOut, path, RECIPIENT, DEADLINE);
        }
    }
}
