// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation } from "../libraries/UsdValuation.sol";

/// @title KnowledgeRoyaltyEnforcer
/// @notice When a Golem sells knowledge it inherited, the same redemption must pay the original author
///         at least royaltyBps of the sale's payments in the same token.
/// @dev Terms: abi.encode(address token, address author, uint16 royaltyBps), 96 bytes, royaltyBps <= 10000.
///      Over all executions (a batch is the normal case) calls to `token`: transfer(to, amt) and
///      transferFrom(from, to, amt) add amt to `royalty` when to == author, else to `paid`.
///      Requires royalty * 10000 >= paid * royaltyBps. A redemption with no payment in `token` passes.
///      Try-mode is refused: in try-mode the royalty transfer could fail while the sale goes through.
contract KnowledgeRoyaltyEnforcer is CaveatEnforcer {
    error InvalidTermsLength(uint256 length);
    error InvalidRoyaltyBps(uint16 royaltyBps);
    error RoyaltyUnpaid(uint256 requiredRoyalty, uint256 paidRoyalty);

    /// @notice Refuses a sale whose batch does not carry the author's royalty.
    /// @dev Reverts RoyaltyUnpaid, InvalidTermsLength, InvalidRoyaltyBps, UnsupportedExecType or
    ///      UnsupportedCallType.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address,
        address
    ) public pure override {
        ExecutionLib.requireDefaultExec(mode);
        (address token, address author, uint16 royaltyBps) = _decodeTerms(terms);
        Execution[] memory executions = ExecutionLib.decode(mode, executionCallData);
        uint256 paid;
        uint256 royalty;
        for (uint256 i; i < executions.length; ++i) {
            if (executions[i].target != token) continue;
            bytes memory cd = executions[i].callData;
            if (cd.length < 4) continue;
            // forge-lint: disable-next-line(unsafe-typecast) -- the first 4 bytes are the selector (len >= 4 checked)
            bytes4 sel = bytes4(cd);
            address to;
            uint256 amount;
            if (sel == UsdValuation.TRANSFER) {
                to = address(uint160(UsdValuation.wordAt(cd, 4)));
                amount = UsdValuation.wordAt(cd, 36);
            } else if (sel == UsdValuation.TRANSFER_FROM) {
                to = address(uint160(UsdValuation.wordAt(cd, 36)));
                amount = UsdValuation.wordAt(cd, 68);
            } else {
                continue;
            }
            if (to == author) royalty = UsdValuation.satAdd(royalty, amount);
            else paid = UsdValuation.satAdd(paid, amount);
        }
        if (paid == 0) return;
        uint256 required = _required(paid, royaltyBps);
        if (royalty < required) revert RoyaltyUnpaid(required, royalty);
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength or InvalidRoyaltyBps.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (address token, address author, uint16 royaltyBps) {
        return _decodeTerms(terms);
    }

    /// @notice The smallest royalty that satisfies the caveat for a sale paying `amount`:
    ///         ceil(amount * royaltyBps / 10000).
    function requiredRoyalty(
        bytes calldata terms,
        uint256 amount
    ) external pure returns (uint256) {
        (,, uint16 royaltyBps) = _decodeTerms(terms);
        return _required(amount, royaltyBps);
    }

    function _required(
        uint256 paid,
        uint16 royaltyBps
    ) private pure returns (uint256) {
        // royalty * 10000 >= paid * bps  <=>  royalty >= ceil(paid * bps / 10000), without overflow.
        return UsdValuation.mulDiv(paid, royaltyBps, 10_000, true);
    }

    function _decodeTerms(
        bytes calldata terms
    ) private pure returns (address token, address author, uint16 bps) {
        if (terms.length != 96) revert InvalidTermsLength(terms.length);
        (token, author, bps) = abi.decode(terms, (address, address, uint16));
        if (bps > 10_000) revert InvalidRoyaltyBps(bps);
    }
}
