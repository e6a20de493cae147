// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "../interfaces/IERC20.sol";

/// @title TestTokenMessenger
/// @notice A Circle CCTP V2 TokenMessengerV2-shaped contract for tests: depositForBurn (0x8e0250ee) with the
///         real parameters, so a bridge grant is tried against the real calldata. LOCAL ONLY: never deploy
///         to a real chain.
/// @dev Nothing crosses a chain: the tokens are pulled from the caller and kept (the "burn"), and the event
///      records what the destination would mint. As CCTP, the fee cap must be below the amount.
contract TestTokenMessenger {
    event DepositForBurn(
        address indexed burnToken,
        uint256 amount,
        address indexed depositor,
        bytes32 mintRecipient,
        uint32 destinationDomain,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 indexed minFinalityThreshold
    );

    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        require(amount > 0, "Amount must be nonzero");
        require(maxFee < amount, "Max fee must be less than amount");
        require(mintRecipient != bytes32(0), "Mint recipient must be nonzero");
        require(IERC20(burnToken).transferFrom(msg.sender, address(this), amount), "burn");
        emit DepositForBurn(
            burnToken, amount, msg.sender, mintRecipient, destinationDomain, destinationCaller, maxFee, minFinalityThreshold
        );
    }
}
